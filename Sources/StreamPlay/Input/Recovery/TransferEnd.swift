/// How one HTTP transfer of an input ended, in the terms recovery decides on: no curl handle,
/// no clock, so that ``ReconnectPlanner`` is a pure function of it.
struct TransferEnd: Sendable {
    /// What went wrong, grouped by what retrying can mend.
    enum Failure: Equatable, Sendable {
        /// No connection was made: refused, or the host not found.
        case connect
        /// The connection broke mid-body: a short body, a receive or send error, an empty reply.
        case broken
        /// No byte came for the stall time-out, or the request's own time-out ran out.
        case stalled
        /// The server answered with this error status.
        case status(Int)
        /// TLS, a bad URL, too many redirects, an unsupported protocol: a retry cannot mend it.
        case permanent
    }

    /// `nil` when the transfer completed.
    var failure: Failure?
    /// The error to report if the play fails here (its URL already redacted).
    var error: PlayerError?
    /// The first byte the transfer asked for.
    var offset: Int
    /// Bytes it delivered.
    var delivered: Int
    /// Seconds from a Retry-After header (delta form), if the answer had one.
    var retryAfter: Double?
    /// Whether the input is under way: it has delivered bytes before (or this transfer did, or
    /// resumed at an offset), or, for HLS, its playlist was read. A failure then is a drop to
    /// recover from; before, the location itself is at fault, and the listener hears at once.
    var inputEstablished: Bool

    /// Whether a completed transfer was a Range answer that stopped before the resource's end,
    /// by its `Content-Range` (a server or CDN that caps what one answer sends): the rest is
    /// still to be asked for.
    var endsBeforeResource = false

    /// Where a retry resumes: the first byte not received.
    var resumeOffset: Int { offset + delivered }

    /// A completed transfer; `endsBeforeResource` when its Range answer stopped short of the
    /// resource's end.
    static func completed(offset: Int, delivered: Int, endsBeforeResource: Bool = false) -> TransferEnd {
        TransferEnd(failure: nil, error: nil, offset: offset, delivered: delivered, retryAfter: nil, inputEstablished: true,
                    endsBeforeResource: endsBeforeResource)
    }
}
