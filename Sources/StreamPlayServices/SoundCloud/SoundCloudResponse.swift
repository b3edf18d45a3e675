import StreamPlay

/// An API answer of the general request method: status, headers and the decoded body.
///
/// Its description, debug description and mirror show the status, the redacted URL and the
/// body's size only: the headers of an off-host redirect carry the CDN's signed Location, and
/// a body may carry anything.
public struct SoundCloudResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The HTTP status (2xx, or 3xx for a redirect off the API's host, which is not followed).
    public var status: Int
    /// The response headers. A redirect's `Location` may be a signed URL: log it only through
    /// `RedactedURL`.
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

    /// `SoundCloudResponse(HTTP status, redacted URL, N bytes)`.
    public var description: String {
        "SoundCloudResponse(HTTP \(status), \(RedactedURL.describe(url)), \(body.count) bytes)"
    }

    /// The same as ``description``: no header or body.
    public var debugDescription: String { description }

    /// Status, redacted URL and body size only, so `dump` shows no header or body.
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "url": RedactedURL.describe(url), "bodyBytes": body.count],
               displayStyle: .struct)
    }
}
