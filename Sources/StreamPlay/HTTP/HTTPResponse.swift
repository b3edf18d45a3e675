/// A response read whole by an ``HTTPTransport`` (API responses are small; ``CurlHTTPClient`` caps
/// them).
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields of the final response.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// The URL that answered (after redirects, when they were followed).
    public var url: String

    /// A response; for tests and for clients that build one.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// A redirect with a Location.
    public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) && headers["Location"] != nil }

    /// Seconds from a Retry-After header in its delta-seconds form.
    public var retryAfter: Double? {
        headers["Retry-After"].flatMap { Double($0.trimmingWhitespace()) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}
