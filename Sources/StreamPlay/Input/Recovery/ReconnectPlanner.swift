/// Decides what follows the end of an input's HTTP transfer: the end of the input, a retry
/// after a delay, a fresh URL, or failure with a typed error.
///
/// One planner serves the progressive input and every HLS segment, so that a dropped
/// connection, a server restarting, an expired signed URL and a rate limit are met the same way
/// wherever the bytes come from. It is a value: it takes a ``TransferEnd`` and answers, with no
/// clock, thread or I/O, and the input carries the answer out.
///
/// The rules, in order:
/// - A completed transfer ends the input, unless it was a Range answer that stopped before the
///   resource's end (a capped range): the rest is asked for at once, as no retry. A 416 for a
///   resumed request ends it too: every byte had arrived, and the length the server gave was
///   wrong.
/// - 403 and 410 mean a signed URL expired, when a refresher can renew it. Before the input is
///   under way a fresh URL is asked for once (refused again, it is final); later each renewal
///   counts as a retry.
/// - 429 and 503 with a Retry-After no longer than ``ReconnectPolicy/maximumRetryAfter`` are
///   tried again then; before the input is under way only once (a server that keeps answering
///   503 is down, and the listener should know).
/// - Once the input is under way, other 5xx answers, a 429 without a Retry-After, refused
///   connections, broken connections and stalls are retried with the policy's backoff from the
///   first byte not received.
/// - Anything else fails at once: a 4xx, a TLS failure, and any failure of a location that
///   never delivered (a wrong address is reported, not retried).
///
/// Retries are counted while no byte arrives; ``ReconnectPolicy/maximumRetries`` of them in a row
/// fail the play. Bytes delivered reset the count.
struct ReconnectPlanner: Sendable {
    enum Decision: Equatable, Sendable {
        /// The input is complete.
        case finished
        /// Request again from `offset` after `delay` seconds.
        case retry(offset: Int, delay: Double)
        /// Ask the URL refresher for a fresh URL, then request from `offset` at once.
        case renewURL(offset: Int)
        /// The play fails with this error.
        case fail(PlayerError)
    }

    let policy: ReconnectPolicy
    /// Whether a URL refresher can renew an expired signed URL.
    let canRenewURL: Bool
    /// Retries since a byte last arrived.
    private(set) var retries = 0
    /// URL renewals since a byte last arrived.
    private(set) var renewals = 0

    init(policy: ReconnectPolicy, canRenewURL: Bool) {
        self.policy = policy
        self.canRenewURL = canRenewURL
    }

    /// Starts counting afresh: a new request that is not a retry (a seek, a new segment).
    mutating func reset() {
        retries = 0
        renewals = 0
    }

    /// What to do after `end`.
    mutating func plan(after end: TransferEnd) -> Decision {
        if end.delivered > 0 { reset() }
        guard let failure = end.failure else {
            return end.endsBeforeResource && end.delivered > 0 ? .retry(offset: end.resumeOffset, delay: 0) : .finished
        }
        let error = end.error ?? .transferFailed(url: "", reason: "\(failure)")
        let established = end.inputEstablished || end.delivered > 0 || end.offset > 0
        switch failure {
        case .status(416) where end.offset > 0:
            return .finished
        case .status(403), .status(410):
            guard canRenewURL, retries < policy.maximumRetries, established || renewals == 0 else { return .fail(error) }
            retries += 1
            renewals += 1
            return .renewURL(offset: end.resumeOffset)
        case .status(let status) where (status == 429 || status == 503) && end.retryAfter != nil:
            let wait = max(end.retryAfter ?? 0, 0)
            guard wait <= policy.maximumRetryAfter, retries < policy.maximumRetries, established || retries == 0 else {
                return .fail(error)
            }
            retries += 1
            return .retry(offset: end.resumeOffset, delay: wait)
        case .status(let status) where (status >= 500 || status == 429) && established:
            return backOff(end, error)
        case .connect, .broken, .stalled:
            return established ? backOff(end, error) : .fail(error)
        case .status, .permanent:
            return .fail(error)
        }
    }

    private mutating func backOff(_ end: TransferEnd, _ error: PlayerError) -> Decision {
        guard retries < policy.maximumRetries else { return .fail(error) }
        retries += 1
        let delay = Backoff.delay(forRetry: retries, initialDelay: policy.initialDelay, maximumDelay: policy.maximumDelay)
        return .retry(offset: end.resumeOffset, delay: delay)
    }
}
