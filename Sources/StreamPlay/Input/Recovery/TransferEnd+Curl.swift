import CCurl
import CStreamPlayShim

extension TransferEnd.Failure {
    /// The failure a libcurl result stands for; `status` is the response code, for
    /// `CURLE_HTTP_RETURNED_ERROR`.
    init(curlCode code: CURLcode, status: Int) {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .connect
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            self = .broken
        case CURLE_OPERATION_TIMEDOUT:
            self = .stalled
        case CURLE_HTTP_RETURNED_ERROR:
            self = .status(status)
        default:
            self = .permanent
        }
    }
}
