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

    /// Creates input facts.
    public init(contentType: String? = nil, totalLength: Int? = nil, supportsRanges: Bool = false,
                metadataInterval: Int? = nil) {
        self.contentType = contentType
        self.totalLength = totalLength
        self.supportsRanges = supportsRanges
        self.metadataInterval = metadataInterval
    }

    /// `true` for a stream with no length and no ranges, such as internet radio: it has no
    /// duration and cannot seek.
    public var isEndless: Bool { totalLength == nil && !supportsRanges }
}
