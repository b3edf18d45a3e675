/// A SoundCloud URN, `soundcloud:KIND:ID` (`soundcloud:tracks:123`, `soundcloud:users:42`).
///
/// Today's API addresses resources by URN; numeric ids still work, and
/// ``init(_:kind:)`` turns either into a URN.
public struct SoundCloudURN: Sendable, Hashable, CustomStringConvertible {
    /// The resource kind, plural as in the URN: `tracks`, `users`, `playlists`.
    public let kind: String
    /// The numeric id.
    public let id: String

    /// A URN of `kind` and `id`; nil unless `id` is all digits and `kind` all letters.
    public init?(kind: String, id: String) {
        guard !id.isEmpty, id.utf8.count <= 20, id.allSatisfy(\.isASCIIDigit),
              !kind.isEmpty, kind.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        self.kind = kind
        self.id = id
    }

    /// Parses `soundcloud:KIND:ID`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "soundcloud" else { return nil }
        self.init(kind: String(parts[1]), id: String(parts[2]))
    }

    /// A URN of `kind` from `text`, either a URN of that kind or a numeric id.
    public init?(_ text: String, kind: String) {
        if let urn = SoundCloudURN(text) {
            guard urn.kind == kind else { return nil }
            self = urn
        } else {
            self.init(kind: kind, id: text)
        }
    }

    /// A track's URN from `soundcloud:tracks:ID` or a numeric id.
    public static func track(_ text: String) -> SoundCloudURN? { SoundCloudURN(text, kind: "tracks") }

    /// A user's URN from `soundcloud:users:ID` or a numeric id.
    public static func user(_ text: String) -> SoundCloudURN? { SoundCloudURN(text, kind: "users") }

    /// The identifier of an API object of `kind` (`tracks`, `users`, `playlists`): its `urn`
    /// as sent, or, for an older answer without one, the URN of its numeric `id`; nil when it
    /// has neither.
    public static func identifier(of json: JSON, kind: String) -> String? {
        if let urn = json["urn"]?.string?.trimmedWhitespace, !urn.isEmpty { return urn }
        guard let id = json["id"]?.int, id >= 0 else { return nil }
        return SoundCloudURN(kind: kind, id: String(id))?.description
    }

    /// `soundcloud:KIND:ID`.
    public var description: String { "soundcloud:\(kind):\(id)" }
}

extension Character {
    /// 0-9 only (not other scripts' digits).
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
