/// How a ``SpotifyClient`` retries HTTP 429 and 5xx answers.
///
/// A 429 waits what Retry-After says; a wait longer than ``maximumWait`` is not slept (the
/// typed ``SpotifyError/rateLimited(retryAfter:)`` comes at once). 5xx answers back off from
/// ``baseDelay``, doubling, or wait the Retry-After a 503 names. The Web API calls made here
/// are GET and PUT, which may be repeated; a POST is not retried after a 5xx.
public struct SpotifyRetryPolicy: Sendable, Equatable {
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
        return (500...599).contains(status) && method != "POST"
    }

    /// The wait before retry number `retry` (0 for the first): the server's word, else backoff.
    func delay(retry: Int, retryAfter: Double?) -> Double {
        retryAfter ?? baseDelay * Double(1 << min(retry, 16))
    }
}
