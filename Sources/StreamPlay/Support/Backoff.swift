/// The one exponential backoff of the engine and the service clients: the first retry waits the
/// initial delay, each later one twice the one before, never more than the maximum.
public enum Backoff {
    /// Seconds to wait before retry number `retry` (from 1).
    public static func delay(forRetry retry: Int, initialDelay: Double, maximumDelay: Double) -> Double {
        let doublings = min(max(retry - 1, 0), 30)
        return max(0, min(initialDelay * Double(1 << doublings), maximumDelay))
    }
}
