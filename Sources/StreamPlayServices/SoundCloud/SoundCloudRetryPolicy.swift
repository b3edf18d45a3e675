/// How a ``SoundCloudClient`` retries HTTP 429 and 5xx answers.
///
/// The wait honours the Retry-After header, then a 429 body's `reset_time`, then doubles from
/// ``baseDelay``. A wait longer than ``maximumWait`` is not slept: the typed error is thrown at
/// once (a daily limit does not reset in seconds). 5xx answers to POST and PATCH are not
/// retried, as the server may have acted on them (429 and 503 are: nothing was done).
public struct SoundCloudRetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included (1: no retry).
    public var maximumAttempts: Int
    /// The longest wait before a retry, in seconds.
    public var maximumWait: Double
    /// The first backoff when the server names no wait, in seconds; doubled each retry.
    public var baseDelay: Double

    /// A policy; by default 4 tries, waits up to 30 s, backoff from 0.5 s.
    public init(maximumAttempts: Int = 4, maximumWait: Double = 30, baseDelay: Double = 0.5) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.maximumWait = max(0, maximumWait)
        self.baseDelay = max(0, baseDelay)
    }

    /// Whether an answer with `status` to `method` may be retried.
    func isRetryable(status: Int, method: String) -> Bool {
        if status == 429 || status == 503 { return true }
        guard (500...599).contains(status) else { return false }
        return method != "POST" && method != "PATCH"
    }

    /// The wait before retry number `retry` (0 for the first): the server's word, else backoff.
    func delay(retry: Int, retryAfter: Double?, resetIn: Double?) -> Double {
        if let retryAfter { return retryAfter }
        if let resetIn { return max(0, resetIn) }
        return baseDelay * Double(1 << min(retry, 16))
    }
}
