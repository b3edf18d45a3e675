import FoundationEssentials

/// Reads HLS playlists (RFC 8216): master playlists and media playlists.
///
/// The text comes from the network: numbers are checked, the segment count is bounded, URIs go
/// through ``RelativeLocation``, and error messages name line numbers, never the text of a line
/// (a URI may carry a token).
enum HLSPlaylistParser {
    /// The most segments a media playlist (or variants a master playlist) may list.
    static let maximumSegments = 100_000
    /// The longest target or segment duration taken, in seconds: a day. No stream has longer
    /// segments, and a playlist's number beyond it (RFC 8216 allows up to 2^64 - 1) would
    /// overflow the reload and position arithmetic; such a playlist is refused as invalid.
    static let maximumDuration = 86_400.0

    /// Whether `text` is an HLS playlist (starts with #EXTM3U, after an optional BOM/whitespace,
    /// and has an #EXT-X- tag or #EXTINF with #EXT-X-TARGETDURATION); a plain .m3u of radio
    /// URLs is not.
    static func isHLS(_ text: String) -> Bool {
        // EXT-X-TARGETDURATION is itself an #EXT-X- tag: one test covers both cases.
        let lines = numberedLines(of: text)
        return hasHeader(lines) && lines.contains { $0.text.hasPrefix("#EXT-X-") }
    }

    /// Parses a master or media playlist fetched from `url` (relative URIs resolve against it).
    ///
    /// A playlist with an EXT-X-STREAM-INF is a master playlist; any other, a media playlist.
    static func parse(_ text: String, url: String) throws(PlayerError) -> HLSPlaylist {
        let lines = numberedLines(of: text)
        let context = HLSParseContext(url: url)
        guard hasHeader(lines) else { throw context.invalid("no #EXTM3U header") }
        if lines.contains(where: { HLSTagLine($0.text)?.name == "#EXT-X-STREAM-INF" }) {
            return .master(try masterPlaylist(lines, context: context))
        }
        var reader = HLSMediaPlaylistReader(context: context)
        for line in lines {
            try reader.read(line)
        }
        return .media(try reader.playlist())
    }

    /// The variants of a master playlist; those without a BANDWIDTH are skipped.
    private static func masterPlaylist(_ lines: [HLSNumberedLine], context: HLSParseContext) throws(PlayerError) -> [HLSVariant] {
        var variants: [HLSVariant] = []
        // The attributes of the last EXT-X-STREAM-INF, waiting for the URI line after it.
        var pending: HLSAttributeList?
        for line in lines {
            if let tag = HLSTagLine(line.text) {
                if tag.name == "#EXT-X-STREAM-INF" { pending = HLSAttributeList(tag.value) }
                continue
            }
            // A comment, or a URI with no EXT-X-STREAM-INF before it (not a variant).
            guard !line.text.hasPrefix("#"), let attributes = pending else { continue }
            pending = nil
            guard let bandwidth = attributes["BANDWIDTH"].flatMap(decimalInteger) else { continue }
            guard variants.count < maximumSegments else {
                throw context.invalid("more than \(maximumSegments) variants")
            }
            variants.append(HLSVariant(
                url: try context.resolve(line.text, line: line.number),
                bandwidth: bandwidth,
                averageBandwidth: attributes["AVERAGE-BANDWIDTH"].flatMap(decimalInteger),
                codecs: attributes["CODECS"].map(codecList) ?? []))
        }
        guard !variants.isEmpty else { throw context.invalid("no variant with a BANDWIDTH") }
        return variants
    }

    /// The non-empty lines of `text`, trimmed, numbered from 1 (blank lines count).
    private static func numberedLines(of text: String) -> [HLSNumberedLine] {
        let body = text.first == "\u{FEFF}" ? text.dropFirst() : text[...]
        // isNewline: "\r\n" is one Character in Swift, so comparing with "\n" would miss it.
        return body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
            .map { HLSNumberedLine(number: $0.offset + 1, text: $0.element.trimmingWhitespace()) }
            .filter { !$0.text.isEmpty }
    }

    /// Whether the first non-blank line is #EXTM3U.
    private static func hasHeader(_ lines: [HLSNumberedLine]) -> Bool {
        lines.first?.text.hasPrefix("#EXTM3U") ?? false
    }

    /// The codec strings of a CODECS attribute ("mp4a.40.2,avc1.4d401e").
    private static func codecList(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// A decimal-integer (RFC 8216 4.2): ASCII digits only, and small enough for an Int.
    fileprivate static func decimalInteger(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// A non-negative decimal-floating-point (RFC 8216 4.2): digits with at most one ".".
    ///
    /// Stricter than `Double(_:)`, which also takes "nan", "inf", "-1" and "0x1p3".
    fileprivate static func decimalFloat(_ text: some StringProtocol) -> Double? {
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard text.utf8.contains(where: isDigit),
              text.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }),
              text.utf8.count(where: { $0 == UInt8(ascii: ".") }) <= 1,
              let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }
}

/// One line of playlist text with its number (from 1), for errors that must not quote it.
private struct HLSNumberedLine {
    /// The line number, counting blank lines.
    let number: Int
    /// The line, trimmed.
    let text: String
}

/// A tag line ("#EXT-X-KEY:METHOD=NONE"): the name and what follows the colon.
private struct HLSTagLine {
    /// The tag with its "#" ("#EXTINF").
    let name: Substring
    /// What follows the first ":", or "" when there is none.
    let value: Substring

    /// The tag in `line`, or nil when `line` is not a tag (a URI, or a comment not starting
    /// "#EXT").
    init?(_ line: String) {
        guard line.hasPrefix("#EXT") else { return nil }
        let colon = line.firstIndex(of: ":") ?? line.endIndex
        name = line[..<colon]
        value = colon == line.endIndex ? "" : line[line.index(after: colon)...]
    }
}

/// An attribute list (RFC 8216 4.2): NAME=VALUE pairs separated by commas, where a VALUE may be
/// a quoted string with commas in it.
private struct HLSAttributeList {
    /// The values by attribute name, quotes removed; of a repeated name, the first.
    private var values: [String: String] = [:]

    /// Reads `text`; what does not parse (a pair without "=", an unclosed quote) is dropped or
    /// taken to the end of the line, as a lenient reader would.
    init(_ text: Substring) {
        var rest = text
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingWhitespace()
            var valueText = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            let value: String
            if valueText.first == "\"" {
                valueText = valueText.dropFirst()
                let close = valueText.firstIndex(of: "\"") ?? valueText.endIndex
                value = String(valueText[..<close])
                rest = valueText[close...]
            } else {
                let comma = valueText.firstIndex(of: ",") ?? valueText.endIndex
                value = valueText[..<comma].trimmingWhitespace()
                rest = valueText[comma...]
            }
            if !name.isEmpty, values[name] == nil { values[name] = value }
            // Past the comma that ends this pair (after a closing quote, there may be nothing).
            guard let comma = rest.firstIndex(of: ",") else { break }
            rest = rest[rest.index(after: comma)...]
        }
    }

    /// The value of attribute `name`, quotes removed.
    subscript(name: String) -> String? {
        values[name]
    }
}

/// What every step of a parse needs: the playlist URL, for resolving URIs and for errors.
private struct HLSParseContext {
    /// The playlist's URL (or path), as fetched.
    let url: String

    /// invalidPlaylist for this playlist, its URL redacted.
    func invalid(_ reason: String) -> PlayerError {
        .invalidPlaylist(url: RedactedURL.describe(url), reason: reason)
    }

    /// unsupportedFormat for this playlist, its URL redacted.
    func unsupported(_ format: String) -> PlayerError {
        .unsupportedFormat(url: RedactedURL.describe(url), format: format)
    }

    /// drmProtected for this playlist, its URL redacted.
    func drm(_ scheme: String) -> PlayerError {
        .drmProtected(url: RedactedURL.describe(url), scheme: scheme)
    }

    /// `uri` (from line `line`) resolved against the playlist URL.
    ///
    /// A remote playlist may name only http(s) URLs: a file:// URI there would have the engine
    /// read a local file the server chose.
    func resolve(_ uri: String, line: Int) throws(PlayerError) -> String {
        guard let location = RelativeLocation.resolve(uri, against: url) else {
            throw invalid("line \(line): a URI that is neither relative nor http(s)")
        }
        if Self.isRemote(url), !Self.isRemote(location) {
            throw invalid("line \(line): a remote playlist names a local file")
        }
        return location
    }

    /// Whether `location` is an http(s) URL.
    private static func isRemote(_ location: String) -> Bool {
        let lowered = location.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
}

/// An EXT-X-BYTERANGE waiting for the segment it applies to.
private struct HLSPendingByteRange {
    /// The number of bytes.
    let length: Int
    /// The "@o" offset; nil when the range follows on from the previous segment's.
    let offset: Int?
    /// The line of the tag, for errors.
    let line: Int
}

/// Reads a media playlist line by line: tags set state, each URI line makes a segment.
private struct HLSMediaPlaylistReader {
    /// The playlist being read.
    let context: HLSParseContext
    /// EXT-X-TARGETDURATION, once read.
    private var targetDuration: Double?
    /// EXT-X-MEDIA-SEQUENCE.
    private var mediaSequence = 0
    /// The segments so far (sequence numbers are given at the end).
    private var segments: [HLSSegment] = []
    /// Whether EXT-X-ENDLIST was read.
    private var hasEndList = false
    /// EXT-X-PLAYLIST-TYPE.
    private var playlistType: HLSPlaylistType?

    // For the next segment only.
    /// The EXTINF duration.
    private var pendingDuration: Double?
    /// The EXT-X-BYTERANGE.
    private var pendingByteRange: HLSPendingByteRange?
    /// Whether an EXT-X-DISCONTINUITY came.
    private var pendingDiscontinuity = false

    // Until the next tag of the kind.
    /// The EXT-X-KEY in force (nil: clear).
    private var key: HLSKey?
    /// The EXT-X-MAP in force.
    private var initializationMap: HLSInitializationMap?

    /// A reader for the playlist `context` names.
    init(context: HLSParseContext) {
        self.context = context
    }

    /// Takes one non-blank line.
    mutating func read(_ line: HLSNumberedLine) throws(PlayerError) {
        guard let tag = HLSTagLine(line.text) else {
            // "#" without "EXT": a comment.
            if !line.text.hasPrefix("#") { try addSegment(uri: line.text, line: line.number) }
            return
        }
        switch tag.name {
        case "#EXT-X-TARGETDURATION":
            guard let value = HLSPlaylistParser.decimalFloat(tag.value.trimmingWhitespace()),
                  value <= HLSPlaylistParser.maximumDuration else {
                throw context.invalid("line \(line.number): EXT-X-TARGETDURATION is not a number of seconds from 0 to a day")
            }
            targetDuration = value
        case "#EXT-X-MEDIA-SEQUENCE":
            // Bounded so that sequence + index cannot overflow.
            guard let value = HLSPlaylistParser.decimalInteger(tag.value.trimmingWhitespace()),
                  value <= Int.max - HLSPlaylistParser.maximumSegments else {
                throw context.invalid("line \(line.number): EXT-X-MEDIA-SEQUENCE is not a number in range")
            }
            mediaSequence = value
        case "#EXTINF":
            let duration = tag.value.prefix { $0 != "," }.trimmingWhitespace()
            guard let value = HLSPlaylistParser.decimalFloat(duration), value <= HLSPlaylistParser.maximumDuration else {
                throw context.invalid("line \(line.number): EXTINF duration is not a number of seconds from 0 to a day")
            }
            pendingDuration = value
        case "#EXT-X-BYTERANGE":
            pendingByteRange = try byteRange(tag.value, line: line.number)
        case "#EXT-X-DISCONTINUITY":
            pendingDiscontinuity = true
        case "#EXT-X-ENDLIST":
            hasEndList = true
        case "#EXT-X-PLAYLIST-TYPE":
            // An unknown type says nothing we can use: as if absent.
            switch tag.value.trimmingWhitespace() {
            case "VOD": playlistType = .vod
            case "EVENT": playlistType = .event
            default: playlistType = nil
            }
        case "#EXT-X-KEY":
            key = try self.key(HLSAttributeList(tag.value), line: line.number)
        case "#EXT-X-MAP":
            let attributes = HLSAttributeList(tag.value)
            guard let uri = attributes["URI"], !uri.isEmpty else {
                throw context.invalid("line \(line.number): EXT-X-MAP without URI")
            }
            // RFC 8216 4.3.2.5: BYTERANGE is "<n>[@<o>]" like EXT-X-BYTERANGE's, but has no
            // previous sub-range to follow on from: without @o it starts at byte 0 (RFC
            // 8216bis makes @o required). Some packagers leave the quotes out; both are read.
            var byteRange: HLSByteRange?
            if let value = attributes["BYTERANGE"] {
                let pending = try self.byteRange(Substring(value), line: line.number, tag: "EXT-X-MAP BYTERANGE")
                let offset = pending.offset ?? 0
                guard offset <= Int.max - pending.length else {
                    throw context.invalid("line \(line.number): EXT-X-MAP BYTERANGE out of range")
                }
                byteRange = HLSByteRange(offset: offset, length: pending.length)
            }
            initializationMap = HLSInitializationMap(url: try context.resolve(uri, line: line.number), byteRange: byteRange)
        default:
            // Tags this player has no use for (PROGRAM-DATE-TIME, INDEPENDENT-SEGMENTS, ...).
            break
        }
    }

    /// The playlist read, checked for what RFC 8216 requires of it.
    func playlist() throws(PlayerError) -> HLSMediaPlaylist {
        guard let targetDuration else { throw context.invalid("no EXT-X-TARGETDURATION") }
        var result = HLSMediaPlaylist(
            targetDuration: targetDuration, mediaSequence: mediaSequence, segments: segments,
            hasEndList: hasEndList, playlistType: playlistType)
        // A live playlist may have no segment yet; a complete one has nothing to play.
        if result.segments.isEmpty, result.isComplete { throw context.invalid("no segments") }
        for index in result.segments.indices {
            result.segments[index].sequence = mediaSequence + index
        }
        return result
    }

    /// The segment at URI line `line`, with the tags before it.
    private mutating func addSegment(uri: String, line: Int) throws(PlayerError) {
        guard let duration = pendingDuration else {
            throw context.invalid("line \(line): a segment URI without EXTINF")
        }
        guard segments.count < HLSPlaylistParser.maximumSegments else {
            throw context.invalid("more than \(HLSPlaylistParser.maximumSegments) segments")
        }
        let location = try context.resolve(uri, line: line)
        segments.append(HLSSegment(
            sequence: 0, url: location, duration: duration,
            byteRange: try resolvedByteRange(for: location), key: key,
            discontinuity: pendingDiscontinuity, initializationMap: initializationMap))
        pendingDuration = nil
        pendingByteRange = nil
        pendingDiscontinuity = false
    }

    /// The pending EXT-X-BYTERANGE for a segment at `location`, its offset made explicit.
    private func resolvedByteRange(for location: String) throws(PlayerError) -> HLSByteRange? {
        guard let pending = pendingByteRange else { return nil }
        let offset: Int
        if let explicit = pending.offset {
            offset = explicit
        } else {
            // RFC 8216 4.3.2.2: without @o, the range starts where the previous segment's
            // sub-range of the same resource ended.
            guard let previous = segments.last, previous.url == location, let range = previous.byteRange else {
                throw context.invalid("line \(pending.line): EXT-X-BYTERANGE without an offset does not follow a sub-range of the same resource")
            }
            offset = range.offset + range.length
        }
        guard offset <= Int.max - pending.length else {
            throw context.invalid("line \(pending.line): EXT-X-BYTERANGE out of range")
        }
        return HLSByteRange(offset: offset, length: pending.length)
    }

    /// A byte range "<n>[@<o>]", the value of `tag` (for errors).
    private func byteRange(_ value: Substring, line: Int, tag: String = "EXT-X-BYTERANGE") throws(PlayerError) -> HLSPendingByteRange {
        let parts = value.trimmingWhitespace().split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        // A zero length would make an empty (and, as an HTTP Range, invalid) request.
        guard let length = HLSPlaylistParser.decimalInteger(parts[0]), length > 0 else {
            throw context.invalid("line \(line): \(tag) length is not a positive number")
        }
        guard parts.count == 2 else { return HLSPendingByteRange(length: length, offset: nil, line: line) }
        guard let offset = HLSPlaylistParser.decimalInteger(parts[1]) else {
            throw context.invalid("line \(line): \(tag) offset is not a non-negative number")
        }
        return HLSPendingByteRange(length: length, offset: offset, line: line)
    }

    /// The key an EXT-X-KEY puts in force: nil for METHOD=NONE.
    private func key(_ attributes: HLSAttributeList, line: Int) throws(PlayerError) -> HLSKey? {
        switch attributes["METHOD"] {
        case "NONE":
            return nil
        case "AES-128":
            guard let uri = attributes["URI"], !uri.isEmpty else {
                throw context.invalid("line \(line): EXT-X-KEY METHOD=AES-128 without URI")
            }
            let location = try context.resolve(uri, line: line)
            guard let ivText = attributes["IV"] else { return HLSKey(url: location, iv: nil) }
            guard let iv = Self.initializationVector(hex: ivText) else {
                throw context.invalid("line \(line): EXT-X-KEY IV is not 0x and 32 hexadecimal digits")
            }
            return HLSKey(url: location, iv: iv)
        case nil:
            throw context.invalid("line \(line): EXT-X-KEY without METHOD")
        case let method? where method.hasPrefix("SAMPLE-AES"):
            let keyFormat = attributes["KEYFORMAT"].map { " with KEYFORMAT \($0)" } ?? ""
            let fairPlay = attributes["URI"]?.lowercased().hasPrefix("skd://") == true ? " (FairPlay skd:// key)" : ""
            throw context.drm("\(method)\(keyFormat)\(fairPlay)")
        default:
            throw context.unsupported("segments encrypted with an unknown EXT-X-KEY METHOD")
        }
    }

    /// The 16 bytes of "0x" followed by 32 hexadecimal digits.
    private static func initializationVector(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 34, digits[0] == UInt8(ascii: "0"), digits[1] | 0x20 == UInt8(ascii: "x") else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for index in stride(from: 2, to: 34, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of one ASCII hexadecimal digit.
    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
