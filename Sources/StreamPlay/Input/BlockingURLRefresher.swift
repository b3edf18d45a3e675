import Synchronization

/// A caller's way to a fresh URL when a signed one expired (see ``Player/play(_:startingAt:length:urlRefresher:)``),
/// asked from an engine thread.
struct BlockingURLRefresher: Sendable {
    let refresh: URLRefresher

    /// Asks for a URL to replace `expired`, blocking this engine thread (never the task pool)
    /// for at most `timeout` seconds, and less when `shouldStop` turns true. Nil when the
    /// refresher failed, took too long, or a stop came.
    func freshURL(replacing expired: String, timeout: Double, shouldStop: () -> Bool) -> String? {
        // Outer nil: no answer yet; inner nil: the refresher failed.
        let result = Mutex<String??>(nil)
        let done = ThreadSignal()
        let refresh = self.refresh
        let task = Task {
            let fresh = try? await refresh(expired)
            result.withEngineLock { $0 = .some(fresh) }
            done.signal()
        }
        let limit = timeout.isFinite ? min(max(timeout, 0), 3600) : 3600
        let deadline = ContinuousClock.now + .milliseconds(Int(limit * 1000))
        while result.withEngineLock({ $0 }) == nil, !shouldStop(), ContinuousClock.now < deadline {
            done.wait(timeout: 0.1)
        }
        // Given up (or stopped): the refresher's requests are of no use any more.
        task.cancel()
        return result.withEngineLock { $0 } ?? nil
    }
}

/// Asked for a fresh URL when a signed stream URL expired (HTTP 403 or 410): given the expired
/// URL, it returns the one to use, typically by resolving the track again (see
/// ``Player/play(_:startingAt:length:urlRefresher:)``).
public typealias URLRefresher = @Sendable (_ expiredURL: String) async throws -> String
