/// How a ``SparkClient`` retries answers that say "not now": 429 (code 1550, over the rate
/// limit) and 503 (code 1510, temporarily unavailable). Spark refuses those requests before
/// acting on them, so every method is retried.
public struct SparkRetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt (0: none).
    public var maximumRetries: Int
    /// The longest wait between attempts, in seconds; a longer Retry-After is capped to it.
    public var maximumDelay: Double

    /// A policy; by default 3 retries, waiting at most 10 s each.
    public init(maximumRetries: Int = 3, maximumDelay: Double = 10) {
        self.maximumRetries = maximumRetries
        self.maximumDelay = maximumDelay
    }

    /// Whether an answer with `status` is worth another try.
    public func isRetryable(status: Int) -> Bool { status == 429 || status == 503 }

    /// Seconds to wait before retry number `attempt` (from 1): the server's Retry-After when it
    /// sent one, else 1, 2, 4, ... seconds; never more than ``maximumDelay``.
    public func delay(retryAfter: Double?, attempt: Int) -> Double {
        let backoff = Double(1 << min(max(attempt - 1, 0), 16))
        return max(0, min(retryAfter ?? backoff, maximumDelay))
    }
}
