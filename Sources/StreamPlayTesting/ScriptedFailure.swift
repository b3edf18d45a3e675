import StreamPlay

/// An answer an ``InMemoryHTTPTransport`` gives the next requests that match, in place of
/// their routes: a rate limit, a server error, an expired session.
public struct ScriptedFailure: Sendable {
    /// How many more requests get this answer.
    public var remaining: Int
    /// The status of the answer.
    public var status: Int
    /// Header fields of the answer (`Retry-After`, when one was given).
    public var headers: HTTPHeaders
    /// The body of the answer.
    public var body: [UInt8]
    /// Only requests with this method (nil: any).
    public var method: HTTPRequest.Method?
    /// Only requests to this host (nil: any); compared without case.
    public var host: String?
    /// Only requests whose percent-decoded path starts with this.
    public var pathPrefix: String

    /// A failure for the next `count` matching requests.
    /// - Parameters:
    ///   - count: how many requests get the answer.
    ///   - status: the answer's status.
    ///   - retryAfter: seconds for a `Retry-After` header (written without a fraction when
    ///     whole, as servers send it).
    ///   - method: only requests with this method (nil: any).
    ///   - host: only requests to this host (nil: any).
    ///   - pathPrefix: only requests whose path starts with this.
    ///   - headers: more header fields of the answer.
    ///   - body: the answer's body.
    public init(count: Int = 1, status: Int, retryAfter: Double? = nil, method: HTTPRequest.Method? = nil,
                host: String? = nil, pathPrefix: String = "/", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        remaining = max(0, count)
        self.status = status
        var headers = headers
        if let retryAfter {
            headers.set("Retry-After", retryAfter == retryAfter.rounded() && abs(retryAfter) < 1e15
                ? String(Int(retryAfter)) : String(retryAfter))
        }
        if !body.isEmpty, headers["Content-Type"] == nil {
            headers.set("Content-Type", body.first == UInt8(ascii: "{") ? "application/json; charset=utf-8" : "text/plain")
        }
        self.headers = headers
        self.body = body
        self.method = method
        self.host = host.map { InMemoryHTTPTransport.splitHost($0).name }
        self.pathPrefix = pathPrefix
    }

    /// Whether `request` gets this answer.
    public func matches(_ request: RecordedRequest) -> Bool {
        remaining > 0 && (method == nil || method == request.method) && (host == nil || host == request.host)
            && request.path.hasPrefix(pathPrefix)
    }

    /// The answer to `request`.
    public func response(for request: RecordedRequest) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: body, url: request.url)
    }
}
