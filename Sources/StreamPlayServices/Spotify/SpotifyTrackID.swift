/// A Spotify track id (22 base62 characters), read from any of the forms users paste:
/// `spotify:track:ID`, `https://open.spotify.com/track/ID?si=...` (also with an
/// `/intl-xx/` segment, or play.spotify.com), or the bare id.
///
/// ```swift
/// SpotifyTrackID("https://open.spotify.com/track/0StrmPlyPreviewTrack01?si=abc")?.uri
/// // "spotify:track:0StrmPlyPreviewTrack01"
/// ```
public struct SpotifyTrackID: Sendable, Hashable, CustomStringConvertible {
    /// The 22-character id.
    public let rawValue: String

    /// The id in `text`, or nil when `text` is none of the accepted forms.
    public init?(_ text: String) {
        let trimmed = text.trimmedWhitespace
        if let id = Self.fromURI(trimmed) ?? Self.fromLink(trimmed) ?? (Self.isValid(trimmed) ? trimmed : nil) {
            rawValue = id
        } else {
            return nil
        }
    }

    /// The id in `text`.
    /// - Throws: ``SpotifyError/invalidTrackID(_:)`` when `text` is none of the accepted forms.
    public static func parse(_ text: String) throws(SpotifyError) -> SpotifyTrackID {
        guard let id = SpotifyTrackID(text) else { throw .invalidTrackID(text) }
        return id
    }

    /// `spotify:track:ID`.
    public var uri: String { "spotify:track:\(rawValue)" }

    /// The track's page: `https://open.spotify.com/track/ID`.
    public var link: String { "https://open.spotify.com/track/\(rawValue)" }

    /// The URI.
    public var description: String { uri }

    /// Whether `text` is 22 ASCII letters and digits.
    static func isValid(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 22 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
    }

    private static func fromURI(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "spotify", parts[1].lowercased() == "track",
              isValid(parts[2]) else { return nil }
        return String(parts[2])
    }

    private static func fromLink(_ text: String) -> String? {
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = text.dropFirst(scheme.count).prefix { $0 != "?" && $0 != "#" }
        let segments = rest.split(separator: "/")
        guard let host = segments.first?.lowercased(), host == "open.spotify.com" || host == "play.spotify.com" else {
            return nil
        }
        var path = Array(segments.dropFirst())
        // Localised links: /intl-de/track/ID.
        if let first = path.first, first.lowercased().hasPrefix("intl-") { path.removeFirst() }
        guard path.count == 2, path[0].lowercased() == "track", isValid(path[1]) else { return nil }
        return String(path[1])
    }
}
