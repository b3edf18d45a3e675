/// What an input learned about the resource it reads.
public struct InputInfo: Sendable, Equatable {
    /// The Content-Type the server sent, if any (files have none).
    public var contentType: String?
    /// The size of the whole resource in bytes, when the server said (Content-Length, or the
    /// total in Content-Range) or the file system knows it.
    public var totalLength: Int?
    /// Whether the input can restart at any byte offset (HTTP Range, or a file).
    public var supportsRanges: Bool

    /// The interval of in-band ICY metadata, for internet radio that sends it.
    public var metadataInterval: Int?

    /// The length in seconds, when the source knows it without decoding (an HLS VOD playlist).
    public var duration: Double?

    /// Creates input facts.
    public init(contentType: String? = nil, totalLength: Int? = nil, supportsRanges: Bool = false,
                metadataInterval: Int? = nil, duration: Double? = nil) {
        self.contentType = contentType
        self.totalLength = totalLength
        self.supportsRanges = supportsRanges
        self.metadataInterval = metadataInterval
        self.duration = duration
    }

    /// `true` for a stream with no length, no ranges and no duration, such as internet radio or
    /// live HLS: it has no duration and cannot seek.
    public var isEndless: Bool { totalLength == nil && !supportsRanges && duration == nil }

    /// The Content-Type, lowercased, when it names text rather than audio: an HTML page (a
    /// login or an error), JSON or XML. Such a response is refused before any of it is decoded.
    /// A type that names neither (`application/octet-stream`, or none) leaves the bytes to
    /// ``ContentSniffer``.
    var textContentType: String? {
        guard let type = contentType?.lowercased() else { return nil }
        let textTypes = ["text/html", "application/xhtml+xml", "application/json", "text/xml", "application/xml"]
        return textTypes.contains(where: { type.hasPrefix($0) }) ? type : nil
    }
}
