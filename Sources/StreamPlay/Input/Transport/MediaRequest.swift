/// One request of the engine for media, as a ``MediaTransport`` is asked to make it: a
/// progressive input's audio, an HLS playlist, key or segment, a radio playlist, a tag's bytes.
public struct MediaRequest: Sendable, Equatable {
    /// The URL asked for (after a renewal, the fresh one).
    public var url: String
    /// The first byte asked for (`Range: bytes=N-`), or `nil` for the whole resource (the first
    /// request, and a reconnect to a live stream, which has no byte positions).
    public var rangeStart: Int?
    /// The last byte asked for, inclusive (`Range: bytes=N-M`: an HLS byte-range segment, a
    /// trailing tag), or `nil` for everything from ``rangeStart`` on. Only with a ``rangeStart``.
    public var rangeEnd: Int?
    /// Header fields to send besides the transport's own (user agent, range): the
    /// configuration's ``PlayerConfiguration/requestHeaders``, and `Icy-MetaData: 1` for a
    /// progressive input.
    public var headers: HTTPHeaders

    /// A request for `url`, from `rangeStart` through `rangeEnd`, with `headers`.
    public init(url: String, rangeStart: Int? = nil, rangeEnd: Int? = nil, headers: HTTPHeaders = [:]) {
        self.url = url
        self.rangeStart = rangeStart
        self.rangeEnd = rangeStart == nil ? nil : rangeEnd
        self.headers = headers
    }
}
