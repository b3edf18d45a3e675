/// How a transfer of a ``MediaTransport`` ended.
public enum MediaTransferEnd: Sendable, Equatable {
    /// Every byte of the response arrived. An error status ends as
    /// ``failed(_:)`` with ``CurlFailureKind/httpStatus`` instead.
    case completed
    /// It failed; the input decides from the kind (and the status in its head) whether a retry
    /// can mend it.
    case failed(MediaTransferFailure)
    /// ``MediaTransferControl/cancel()`` ended it first.
    case cancelled
}

/// Why a transfer of a ``MediaTransport`` failed.
public struct MediaTransferFailure: Sendable, Equatable {
    /// What kind of failure it was, as the engine classifies libcurl's results: a transport
    /// that breaks a connection mid-body reports ``CurlFailureKind/connectionBroken``, as
    /// libcurl does for a body shorter than its `Content-Length`.
    public var kind: CurlFailureKind
    /// A readable reason, for the error the listener may hear. The engine removes the
    /// request's URL, credentials and query from it, should it quote them, but a transport
    /// should not quote request headers (they may carry tokens).
    public var reason: String

    /// A failure of `kind`, for `reason`.
    public init(kind: CurlFailureKind, reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
