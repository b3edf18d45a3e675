import FoundationEssentials

/// What a stream says about what it plays now: an internet radio station's ICY `StreamTitle`
/// and `StreamUrl`, or the title, artist, album, track number and cover of a file's tags.
public struct StreamMetadata: Sendable, Equatable {
    /// The title. From a radio station usually "Artist - Title"; from a tag the title alone.
    public var title: String?
    /// A link the station gives with the title, if any.
    public var url: String?
    /// The artist, as a tag names it (`TPE1`); radio stations send none.
    public var artist: String?
    /// The album, as a tag names it (`TALB`); radio stations send none.
    public var album: String?
    /// The track's number on its album (`TRCK`, `trkn`, `TRACKNUMBER`: the `3` of `3/12`).
    public var trackNumber: Int?
    /// The cover picture the tags carry, up to ``Artwork/maximumSize``.
    public var artwork: Artwork?
    /// The ReplayGain the track plays with, when ``PlayerConfiguration/replayGain`` asks for one
    /// and the track states one; reported with the names once decoding starts.
    public var replayGain: ReplayGainAdjustment?
    /// The ReplayGain values a tag states, before the settings choose among them (internal:
    /// the tag readers fill it, the session hands it to the decoder).
    var replayGainValues: ReplayGainValues?

    /// Creates metadata.
    public init(title: String?, url: String? = nil, artist: String? = nil, album: String? = nil,
                trackNumber: Int? = nil, artwork: Artwork? = nil, replayGain: ReplayGainAdjustment? = nil) {
        self.title = title
        self.url = url
        self.artist = artist
        self.album = album
        self.trackNumber = trackNumber
        self.artwork = artwork
        self.replayGain = replayGain
    }

    /// Whether nothing is named: no title, link, artist, album, number or picture (a gain
    /// names nothing).
    var isEmpty: Bool {
        title == nil && url == nil && artist == nil && album == nil && trackNumber == nil && artwork == nil
    }

    /// These names, with the fields they lack taken from `other` (a file's ID3v2 tag first,
    /// then its container's tags, then its ID3v1 tag).
    func filling(from other: StreamMetadata?) -> StreamMetadata {
        guard let other else { return self }
        var names = self
        names.title = title ?? other.title
        names.url = url ?? other.url
        names.artist = artist ?? other.artist
        names.album = album ?? other.album
        names.trackNumber = trackNumber ?? other.trackNumber
        names.artwork = artwork ?? other.artwork
        return names
    }

    /// The number in a track-number tag such as `3`, `03` or `3/12`; `nil` when it has none.
    static func trackNumber(from text: some StringProtocol) -> Int? {
        let digits = text.drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int(digits), number > 0 else { return nil }
        return number
    }

    /// Parses a metadata block such as `StreamTitle='A - B';StreamUrl='http://…';` (NUL padded).
    /// Returns `nil` when the block names neither.
    init?(icyBlock bytes: [UInt8]) {
        let trimmed = bytes.prefix { $0 != 0 }
        // Stations send UTF-8 or Latin-1; a byte sequence that is not UTF-8 is read as Latin-1.
        let text = String(validating: trimmed, as: UTF8.self) ?? String(trimmed.map { Character(Unicode.Scalar($0)) })
        title = Self.field("StreamTitle", in: text)
        url = Self.field("StreamUrl", in: text)
        if title == nil && url == nil { return nil }
    }

    /// The value of `name='…';`. A title may itself hold quotes and semicolons, so the value
    /// ends at the first `';` that starts another field or ends the block.
    private static func field(_ name: String, in text: String) -> String? {
        guard let start = text.firstRange(of: "\(name)='") else { return nil }
        let rest = text[start.upperBound...]
        var searchFrom = rest.startIndex
        while let end = rest[searchFrom...].firstRange(of: "';") {
            let after = rest[end.upperBound...]
            if after.isEmpty || after.hasPrefix("Stream") || after.allSatisfy({ $0 == "\0" || $0.isWhitespace }) {
                return String(rest[..<end.lowerBound])
            }
            searchFrom = end.upperBound
        }
        // No terminator: take the rest, without a trailing quote.
        let value = rest.hasSuffix("'") ? rest.dropLast() : rest
        return String(value)
    }
}
