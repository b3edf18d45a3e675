import CCurl

extension TransferEnd.Failure {
    /// The failure a libcurl result stands for, from its ``CurlFailureKind``; `status` is the
    /// response code, for an error status.
    init(curlCode code: CURLcode, status: Int) {
        self.init(kind: CurlFailureKind(code), status: status)
    }

    /// The failure a transfer's ``CurlFailureKind`` stands for (`nil`: none, which is taken as
    /// permanent); `status` is the response code, for an error status.
    init(kind: CurlFailureKind?, status: Int) {
        switch kind {
        case .hostNotFound, .connectFailed:
            self = .connect
        case .connectionBroken:
            self = .broken
        case .timedOut:
            self = .stalled
        case .httpStatus:
            self = .status(status)
        case .tls, .tooManyRedirects, .unsupportedProtocol, .aborted, .other, nil:
            self = .permanent
        }
    }
}
