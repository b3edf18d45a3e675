/// Why an ``HTTPTransport`` (``CurlHTTPClient``) got no response. A response with any status is
/// not an error here: API clients read error bodies. URLs in these errors are redacted (no
/// query, no credentials).
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The calling task was cancelled; the transfer was stopped.
    case cancelled(url: String)
    /// The network failed: no connection, TLS, a timeout, a broken transfer.
    case network(PlayerError)
    /// The response was larger than the client accepts.
    case responseTooLarge(url: String, limit: Int)
    /// The request could not be made: a URL that is not http(s), a file to upload that
    /// cannot be read.
    case invalidRequest(String)
    /// The client was shut down while the request was under way. No longer produced: requests
    /// run on the process-wide transfer loop, which is never shut down. Kept for source
    /// compatibility until the next release that may break it.
    case shutDown

    /// A one-line description.
    public var description: String {
        switch self {
        case .cancelled(let url): "request to \(url) cancelled"
        case .network(let error): error.description
        case .responseTooLarge(let url, let limit): "the response from \(url) is larger than \(limit) bytes"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .shutDown: "the HTTP client was shut down"
        }
    }
}
