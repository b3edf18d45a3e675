/// A request for an ``HTTPTransport`` (``CurlHTTPClient``): an API call, a token request, an upload.
///
/// Redirects are not followed unless asked: an API client decides itself which headers a
/// redirect may carry (a signed CDN URL must not receive the OAuth token).
public struct HTTPRequest: Sendable {
    /// The request method.
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The method's name as sent.
        public var rawValue: String
        /// A method by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// GET.
        public static let get = Method(rawValue: "GET")
        /// POST.
        public static let post = Method(rawValue: "POST")
        /// PUT.
        public static let put = Method(rawValue: "PUT")
        /// PATCH.
        public static let patch = Method(rawValue: "PATCH")
        /// DELETE.
        public static let delete = Method(rawValue: "DELETE")
        /// HEAD (no body is read).
        public static let head = Method(rawValue: "HEAD")
        /// The method's name.
        public var description: String { rawValue }
    }

    /// What the request carries.
    public enum Body: Sendable {
        /// No body.
        case none
        /// Bytes of the given content type.
        case bytes([UInt8], contentType: String)
        /// A multipart/form-data body (an upload), streamed by libcurl.
        case multipart(MultipartForm)

        /// `application/x-www-form-urlencoded` fields, in order.
        public static func form(_ fields: [(String, String)]) -> Body {
            .bytes(Array(FormEncoding.encode(fields).utf8), contentType: "application/x-www-form-urlencoded")
        }

        /// A JSON document.
        public static func json(_ bytes: [UInt8]) -> Body {
            .bytes(bytes, contentType: "application/json")
        }
    }

    /// The method.
    public var method: Method
    /// The absolute http(s) URL.
    public var url: String
    /// Header fields to send (User-Agent comes from the client's configuration).
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// Whether libcurl follows redirects itself (then with every header of this request).
    public var followsRedirects: Bool
    /// Longest time for the whole exchange, in seconds; `nil` for the client's default.
    public var timeout: Double?

    /// A request; by default a GET with no body, redirects returned rather than followed.
    public init(method: Method = .get, url: String, headers: HTTPHeaders = [:], body: Body = .none,
                followsRedirects: Bool = false, timeout: Double? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.followsRedirects = followsRedirects
        self.timeout = timeout
    }
}
