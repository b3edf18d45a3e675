/// What sends an ``HTTPRequest`` and returns its ``HTTPResponse``: the seam between the service
/// clients (OAuth, the SoundCloud, Spotify and Spark APIs) and the network.
///
/// ``CurlHTTPClient`` is the transport for real use; a test puts an in-memory one in its place
/// (the `StreamPlayTesting` library has one that routes requests to fakes of the services).
///
/// A conforming type keeps the curl client's contract, which the service clients rely on:
/// - Any status is an answer, not an error: error bodies are read by the caller. Only a request
///   that got no response throws.
/// - Redirects are returned, not followed, unless ``HTTPRequest/followsRedirects`` asks: the
///   caller decides which headers a redirect target may receive (never an OAuth token to a CDN).
/// - A cancelled task ends its request and gets ``HTTPClientError/cancelled(url:)``, with the
///   URL redacted (no query, no credentials).
/// - `uploadProgress`, when given, is called with (bytes sent, bytes to send) while a body goes
///   out, possibly on another thread; it must return quickly.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    /// - Parameters:
    ///   - request: what to send.
    ///   - uploadProgress: called with (bytes sent, bytes to send) while a body goes out.
    /// - Throws: ``HTTPClientError`` when no response came (network, cancellation, a request
    ///   that cannot be made).
    func send(_ request: HTTPRequest,
              uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?)
        async throws(HTTPClientError) -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request` without reporting upload progress.
    /// - Parameter request: what to send.
    /// - Throws: ``HTTPClientError`` when no response came.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        try await send(request, uploadProgress: nil)
    }
}
