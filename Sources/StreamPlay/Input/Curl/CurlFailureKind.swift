import CCurl

/// What kind of failure a transfer's end stands for, as the engine classifies libcurl's result
/// codes: the one place a `CURLcode` is read.
///
/// The engine reports failures in three vocabularies: ``PlayerError`` for the listener, its
/// reconnect planner's (what a retry can mend), and ``HTTPClientError`` for the API client.
/// Each is derived from this classification, so a code added here reaches all three at once.
/// A ``MediaTransport`` other than libcurl reports its failures in these terms
/// (``MediaTransferFailure/kind``).
public enum CurlFailureKind: Equatable, Sendable {
    /// The host, or the proxy, has no address.
    case hostNotFound
    /// No connection could be made (refused, unreachable).
    case connectFailed
    /// The connection was made, then broke: a short body, a receive or send error, an empty
    /// reply, or an HTTP/2 or HTTP/3 stream the server reset or went away from (a CDN edge's
    /// `RST_STREAM` or `GOAWAY` mid-body).
    case connectionBroken
    /// A timeout of the request ran out (connect or the whole request).
    case timedOut
    /// The server answered with an error status (`CURLOPT_FAILONERROR`).
    case httpStatus
    /// TLS could not be set up or verified.
    case tls
    /// More redirects than allowed.
    case tooManyRedirects
    /// A scheme libcurl was not allowed to use.
    case unsupportedProtocol
    /// A callback of ours ended the transfer (a stop, a limit, a cancellation).
    case aborted
    /// Anything else: nothing a retry is known to mend.
    case other

    /// The kind of failure `code` is, or `nil` for `CURLE_OK`.
    init?(_ code: CURLcode) {
        switch code {
        case CURLE_OK:
            return nil
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .hostNotFound
        case CURLE_COULDNT_CONNECT:
            self = .connectFailed
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            self = .connectionBroken
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut
        case CURLE_HTTP_RETURNED_ERROR:
            self = .httpStatus
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR:
            self = .tls
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .unsupportedProtocol
        case CURLE_ABORTED_BY_CALLBACK, CURLE_WRITE_ERROR:
            self = .aborted
        default:
            self = .other
        }
    }
}
