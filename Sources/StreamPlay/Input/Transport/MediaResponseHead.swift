/// The status and header fields of the response a ``MediaTransport`` got for a request.
///
/// The input reads from it what it needs: `Content-Length`, `Content-Range`, `Accept-Ranges`,
/// `Content-Type`, `Retry-After` and `icy-metaint`.
public struct MediaResponseHead: Sendable, Equatable {
    /// The HTTP status (`200`, `206`, `503`, …).
    public var status: Int
    /// The response's header fields, in order.
    public var headers: HTTPHeaders

    /// A response with `status` and `headers`.
    public init(status: Int, headers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
    }
}
