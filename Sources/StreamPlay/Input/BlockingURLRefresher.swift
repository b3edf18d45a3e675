import Synchronization

/// A caller's way to a fresh URL when a signed one expired (see ``Player/play(_:startingAt:length:urlRefresher:)``),
/// asked from an engine thread.
struct BlockingURLRefresher: Sendable {
    let refresh: URLRefresher
    /// The time the refresh timeout is measured on: the player's ``PlayerConfiguration/clock``.
    let clock: any PlaybackClock

    /// Asks for a URL to replace `expired`, blocking this engine thread (never the task pool)
    /// for at most `timeout` seconds of ``clock``, and less when `shouldStop` turns true. Nil
    /// when the refresher failed, took too long, or a stop came.
    /// - Parameters:
    ///   - wakeUp: the calling thread's own wake-up signal, which its stop signals; the
    ///     refresher's answer signals it too. The thread sleeps on it, on ``clock``, meanwhile.
    ///   - shouldStop: whether the thread was told to stop (or to do something else): read
    ///     whenever `wakeUp` wakes it.
    func freshURL(replacing expired: String, timeout: Double, wakeUp: WakeUpSignal,
                  shouldStop: () -> Bool) -> String? {
        // Outer nil: no answer yet; inner nil: the refresher failed.
        let result = Mutex<String??>(nil)
        let refresh = self.refresh
        let task = Task {
            let fresh = try? await refresh(expired)
            result.withEngineLock { $0 = .some(fresh) }
            wakeUp.signal()
        }
        let limit = timeout.isFinite ? min(max(timeout, 0), 3600) : 3600
        let deadline = clock.now + .milliseconds(Int(limit * 1000))
        var slept = false
        while result.withEngineLock({ $0 }) == nil, !shouldStop(), clock.now < deadline {
            clock.sleep(until: deadline, wakeUp: wakeUp)
            slept = true
        }
        // Given up (or stopped): the refresher's requests are of no use any more.
        task.cancel()
        // A wait consumes the signal, which news for the thread (a command, room in the
        // buffer) may have given meanwhile: given again, the thread's next wait does not sleep
        // through it. An extra wake-up is harmless.
        if slept { wakeUp.signal() }
        return result.withEngineLock { $0 } ?? nil
    }
}

/// Asked for a fresh URL when a signed stream URL expired (HTTP 403 or 410): given the expired
/// URL, it returns the one to use, typically by resolving the track again (see
/// ``Player/play(_:startingAt:length:urlRefresher:)``).
public typealias URLRefresher = @Sendable (_ expiredURL: String) async throws -> String
