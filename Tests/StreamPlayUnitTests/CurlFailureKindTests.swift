import CCurl
import Testing
@testable import StreamPlay

/// The one classification of libcurl's result codes, and the three vocabularies derived from
/// it (the listener's error, the reconnect planner's failure, the API client's timeout check),
/// checked without a network.
@Suite("Curl failure kinds")
struct CurlFailureKindTests {
    @Test("each code falls into its kind, and success into none", arguments: [
        (CURLE_COULDNT_RESOLVE_HOST, CurlFailureKind.hostNotFound),
        (CURLE_COULDNT_RESOLVE_PROXY, .hostNotFound),
        (CURLE_COULDNT_CONNECT, .connectFailed),
        (CURLE_PARTIAL_FILE, .connectionBroken),
        (CURLE_RECV_ERROR, .connectionBroken),
        (CURLE_SEND_ERROR, .connectionBroken),
        (CURLE_GOT_NOTHING, .connectionBroken),
        (CURLE_HTTP2, .connectionBroken),
        (CURLE_HTTP2_STREAM, .connectionBroken),
        (CURLE_HTTP3, .connectionBroken),
        (CURLE_OPERATION_TIMEDOUT, .timedOut),
        (CURLE_HTTP_RETURNED_ERROR, .httpStatus),
        (CURLE_PEER_FAILED_VERIFICATION, .tls),
        (CURLE_SSL_CONNECT_ERROR, .tls),
        (CURLE_SSL_CACERT_BADFILE, .tls),
        (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects),
        (CURLE_UNSUPPORTED_PROTOCOL, .unsupportedProtocol),
        (CURLE_ABORTED_BY_CALLBACK, .aborted),
        (CURLE_WRITE_ERROR, .aborted),
        (CURLE_OUT_OF_MEMORY, .other),
    ])
    func kinds(code: CURLcode, kind: CurlFailureKind) {
        #expect(CurlFailureKind(code) == kind)
    }

    @Test("CURLE_OK is no failure")
    func success() {
        #expect(CurlFailureKind(CURLE_OK) == nil)
    }

    @Test("the planner's failure follows the kind: connect, broken, stalled, status, or nothing a retry mends")
    func plannerFailure() {
        #expect(TransferEnd.Failure(curlCode: CURLE_COULDNT_RESOLVE_HOST, status: 0) == .connect)
        #expect(TransferEnd.Failure(curlCode: CURLE_COULDNT_CONNECT, status: 0) == .connect)
        #expect(TransferEnd.Failure(curlCode: CURLE_RECV_ERROR, status: 0) == .broken)
        // A reset HTTP/2 stream is resumed like a dropped connection, not a failed play.
        #expect(TransferEnd.Failure(curlCode: CURLE_HTTP2_STREAM, status: 0) == .broken)
        #expect(TransferEnd.Failure(curlCode: CURLE_OPERATION_TIMEDOUT, status: 0) == .stalled)
        #expect(TransferEnd.Failure(curlCode: CURLE_HTTP_RETURNED_ERROR, status: 503) == .status(503))
        #expect(TransferEnd.Failure(curlCode: CURLE_PEER_FAILED_VERIFICATION, status: 0) == .permanent)
        #expect(TransferEnd.Failure(curlCode: CURLE_TOO_MANY_REDIRECTS, status: 0) == .permanent)
        #expect(TransferEnd.Failure(curlCode: CURLE_ABORTED_BY_CALLBACK, status: 0) == .permanent)
    }

    static func error(_ code: CURLcode, status: Int = 0, received: Int = 0) -> PlayerError {
        CurlRequest.error(for: code, status: status, osError: 0, url: "https://user:secret@cdn.example/a.mp3?sig=1",
                          received: received, connectTimeout: 7)
    }

    @Test("the listener's error follows the kind, with the URL redacted")
    func playerError() {
        #expect(Self.error(CURLE_HTTP_RETURNED_ERROR, status: 404).code == .httpStatus)
        #expect(Self.error(CURLE_COULDNT_RESOLVE_HOST) == .hostNotFound(host: "cdn.example"))
        #expect(Self.error(CURLE_COULDNT_CONNECT).code == .connectionFailed)
        #expect(Self.error(CURLE_OPERATION_TIMEDOUT).code == .timedOut)
        #expect(Self.error(CURLE_SSL_CONNECT_ERROR).code == .tlsFailure)
        #expect(Self.error(CURLE_TOO_MANY_REDIRECTS).code == .tooManyRedirects)
        #expect(Self.error(CURLE_UNSUPPORTED_PROTOCOL) == .unsupportedScheme("https"))
        #expect(Self.error(CURLE_WRITE_ERROR).code == .transferFailed)
        for code in [CURLE_HTTP_RETURNED_ERROR, CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR, CURLE_OUT_OF_MEMORY] {
            #expect(!"\(Self.error(code, status: 500))".contains("secret"))
        }
    }

    @Test("a transport's reason that quotes the URL reaches the error without its secrets")
    func reasonRedacted() {
        let url = "https://user:secret@cdn.example/a.mp3?signature=token"
        for kind in [CurlFailureKind.connectFailed, .connectionBroken, .tls, .other] {
            let failure = MediaTransferFailure(kind: kind, reason: "reset while reading \(url)")
            let error = CurlRequest.error(for: failure, status: 0, url: url, received: 10, connectTimeout: 7)
            #expect(!"\(error)".contains("secret") && !"\(error)".contains("?signature=token"), "\(error)")
        }
    }

    @Test("a broken connection is lost once bytes came, and failed before")
    func brokenConnection() {
        #expect(Self.error(CURLE_PARTIAL_FILE, received: 0).code == .connectionFailed)
        #expect(Self.error(CURLE_PARTIAL_FILE, received: 10).code == .connectionLost)
    }
}
