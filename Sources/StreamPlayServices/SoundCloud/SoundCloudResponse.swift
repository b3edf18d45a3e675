import StreamPlay

/// An API answer of the general request method: status, headers and the decoded body.
public struct SoundCloudResponse: Sendable {
    /// The HTTP status (2xx, or 3xx for a redirect off the API's host, which is not followed).
    public var status: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body decoded (`null` when empty or not JSON).
    public var json: JSON
    /// The body bytes.
    public var body: [UInt8]
    /// The URL that answered, redacted (no query).
    public var url: String

    /// A response.
    public init(status: Int, headers: HTTPHeaders, json: JSON, body: [UInt8], url: String) {
        self.status = status
        self.headers = headers
        self.json = json
        self.body = body
        self.url = url
    }
}
