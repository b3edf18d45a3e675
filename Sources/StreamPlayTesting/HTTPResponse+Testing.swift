import StreamPlay
import StreamPlayServices

extension HTTPResponse {
    /// A JSON answer to `request`, for a handler of an ``InMemoryHTTPTransport``.
    public static func json(_ value: JSON, status: Int = 200, headers: HTTPHeaders = [:],
                            for request: RecordedRequest) -> HTTPResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers.set("Content-Type", "application/json; charset=utf-8") }
        return HTTPResponse(status: status, headers: headers, body: value.encoded(), url: request.url)
    }

    /// A plain-text answer to `request`.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:],
                            for request: RecordedRequest) -> HTTPResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers.set("Content-Type", "text/plain; charset=utf-8") }
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8), url: request.url)
    }

    /// A redirect to `location` (302 unless told), with an optional JSON body (SoundCloud's
    /// `{"status": "302 - Found", "location": ...}`).
    public static func redirect(to location: String, status: Int = 302, body: JSON? = nil,
                                for request: RecordedRequest) -> HTTPResponse {
        var headers: HTTPHeaders = ["Location": location]
        if body != nil { headers.set("Content-Type", "application/json; charset=utf-8") }
        return HTTPResponse(status: status, headers: headers, body: body?.encoded() ?? [], url: request.url)
    }
}
