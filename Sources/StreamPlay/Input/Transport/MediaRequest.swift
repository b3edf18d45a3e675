/// One request of a progressive HTTP input, as a ``MediaTransport`` is asked to make it.
public struct MediaRequest: Sendable, Equatable {
    /// The URL asked for (after a renewal, the fresh one).
    public var url: String
    /// The first byte asked for (`Range: bytes=N-`), or `nil` for the whole resource (the first
    /// request, and a reconnect to a live stream, which has no byte positions).
    public var rangeStart: Int?
    /// Header fields to send besides the transport's own (user agent, range): the
    /// configuration's ``PlayerConfiguration/requestHeaders`` and `Icy-MetaData: 1`.
    public var headers: HTTPHeaders

    /// A request for `url`, from `rangeStart`, with `headers`.
    public init(url: String, rangeStart: Int? = nil, headers: HTTPHeaders = [:]) {
        self.url = url
        self.rangeStart = rangeStart
        self.headers = headers
    }
}
