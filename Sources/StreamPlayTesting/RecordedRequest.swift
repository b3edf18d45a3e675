import StreamPlay

/// A request as an ``InMemoryHTTPTransport`` received it: the `HTTPRequest` itself and its URL
/// taken apart, for routing and for a test's assertions.
///
/// ```swift
/// let toCDN = transport.requests.filter { $0.host == "cf-media.sndcdn.com" }
/// #expect(toCDN.allSatisfy { $0.headers["Authorization"] == nil })
/// ```
public struct RecordedRequest: Sendable {
    /// The request as sent.
    public let request: HTTPRequest
    /// The URL's scheme, lowercased (`https`).
    public let scheme: String
    /// The URL's host, lowercased, without the port.
    public let host: String
    /// The port the URL names, or nil for the scheme's default.
    public let port: Int?
    /// The path, percent-decoded (`/tracks/soundcloud:tracks:123`); `/` when the URL has none.
    public let path: String
    /// The query's fields, decoded, in order.
    public let query: [(name: String, value: String)]

    /// The request taken apart; nil when its URL is not an absolute http(s) URL.
    public init?(_ request: HTTPRequest) {
        guard let parts = URLParts(request.url) else { return nil }
        self.request = request
        scheme = parts.scheme
        host = parts.host
        port = parts.port
        path = parts.path
        query = parts.query
    }

    /// The method.
    public var method: HTTPRequest.Method { request.method }
    /// The whole URL as sent.
    public var url: String { request.url }
    /// The header fields as sent.
    public var headers: HTTPHeaders { request.headers }

    /// The first value of the query field `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The body's bytes: those of a `.bytes` body, none for the others (a multipart upload is
    /// read through `HTTPRequest.body`).
    public var bodyBytes: [UInt8] {
        if case .bytes(let bytes, _) = request.body { return bytes }
        return []
    }

    /// The body's content type, for a `.bytes` body.
    public var contentType: String? {
        if case .bytes(_, let type) = request.body { return type }
        return nil
    }

    /// The fields of an `application/x-www-form-urlencoded` body, decoded, in order; empty for
    /// any other body.
    public var formFields: [(name: String, value: String)] {
        guard let type = contentType, type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return [] }
        return URLParts.decodeQuery(String(decoding: bodyBytes, as: UTF8.self))
    }

    /// The first value of the form field `name`.
    public func formValue(_ name: String) -> String? {
        formFields.first { $0.name == name }?.value
    }

    /// The scheme of the Authorization header (`OAuth`, `Bearer`, `Basic`), if one was sent.
    public var authorizationScheme: String? {
        headers["Authorization"].map { String($0.prefix { $0 != " " }) }
    }

    /// The credentials after the Authorization header's scheme, if one was sent.
    public var authorizationCredentials: String? {
        guard let value = headers["Authorization"], let space = value.firstIndex(of: " ") else { return nil }
        return value[value.index(after: space)...].trimmingWhitespace()
    }
}

/// An absolute http(s) URL taken apart: enough for routing, no more.
struct URLParts: Sendable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: [(name: String, value: String)]

    init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = Substring(url[schemeEnd.upperBound...])
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = number
            authority = authority[..<colon]
        } else {
            port = nil
        }
        guard !authority.isEmpty else { return nil }
        host = authority.lowercased()
        let pathAndQuery = rest[authorityEnd...]
        let questionMark = pathAndQuery.firstIndex(of: "?")
        let rawPath = questionMark.map { pathAndQuery[..<$0] } ?? pathAndQuery
        path = rawPath.isEmpty ? "/" : FormEncoding.percentDecode(rawPath, plusIsSpace: false)
        query = questionMark.map { Self.decodeQuery(String(pathAndQuery[pathAndQuery.index(after: $0)...])) } ?? []
    }

    /// `name=value&...` decoded (`+` is a space).
    static func decodeQuery(_ text: String) -> [(name: String, value: String)] {
        FormEncoding.decode(text).map { (name: $0.0, value: $0.1) }
    }
}
