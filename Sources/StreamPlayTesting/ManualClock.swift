import StreamPlay
import Synchronization

/// A `PlaybackClock` that moves only when a test advances it, for tests of a `Player`'s waits
/// without waiting: give it with `PlayerConfiguration.clock`.
///
/// The engine's input then measures its stall timeout, its reconnect backoff, a server's
/// Retry-After, an HLS playlist's reloads, the time limit of a playlist's, key's or tag's
/// request and the wait for a URL refresher on this clock. Its thread sleeps on the clock until a deadline; ``advance(by:)`` wakes every thread whose
/// deadline has come, and the thread carries out what was due. With a
/// ``ScriptedMediaServer`` in place of the network, "503 with Retry-After: 5" is a few lines
/// and no seconds:
///
/// ```swift
/// let clock = ManualClock()
/// server.script(url, .status(503, retryAfter: 5))
/// configuration.clock = clock
/// player.play(.remote(url))
/// #expect(await clock.waitForSleeper { $0 == .seconds(5) })   // the retry is planned
/// clock.advance(by: .seconds(5))                                // and now made
/// ```
///
/// Only time stands still: the engine's threads run at their own pace, so a test waits for
/// them to reach a point (``waitForSleeper(timeout:where:)``, or the server's requests) before
/// it advances the clock or asserts that nothing happened. A progressive input looks at its
/// transfer every 250 ms of this clock and notices the last byte that came, or a stall, only
/// then: let it look once after the last byte (advance 250 ms, wait for it to sleep again)
/// before the jump past the stall timeout. An HLS segment's request counts its stall from the
/// last byte's arrival, and sleeps until that deadline exactly.
public final class ManualClock: PlaybackClock {
    /// A thread asleep on the clock.
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let wakeUp: WakeUpSignal
    }

    private struct State {
        var now: Duration
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    /// A clock that reads `now` until it is advanced.
    public init(now: Duration = .zero) {
        state = Mutex(State(now: now))
    }

    /// The time now: where the clock started, plus every advance.
    public var now: Duration { state.withEngineLock { $0.now } }

    /// The deadlines of the threads asleep on the clock now, earliest first.
    public var sleepingDeadlines: [Duration] {
        state.withEngineLock { $0.sleepers.map(\.deadline) }.sorted()
    }

    /// Moves the clock `duration` forward and wakes every thread whose deadline has come.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock that goes back: \(duration)")
        let due = state.withEngineLock { state -> [WakeUpSignal] in
            state.now += duration
            let now = state.now
            return state.sleepers.filter { $0.deadline <= now }.map(\.wakeUp)
        }
        for wakeUp in due { wakeUp.signal() }
    }

    /// Blocks the calling thread until the clock has been advanced to `deadline`, or until
    /// `wakeUp` is signalled otherwise. Real time does not end the wait.
    public func sleep(until deadline: Duration, wakeUp: WakeUpSignal) {
        let id = state.withEngineLock { state -> Int? in
            guard deadline > state.now else { return nil }
            state.nextID += 1
            state.sleepers.append(Sleeper(id: state.nextID, deadline: deadline, wakeUp: wakeUp))
            return state.nextID
        }
        guard let id else { return }
        defer { state.withEngineLock { $0.sleepers.removeAll { $0.id == id } } }
        // A signal (an advance past the deadline, or the thread's own wake-up) ends the wait;
        // the slices of real time only bound each wait of the underlying condition.
        while !wakeUp.wait(timeout: .seconds(1)) {
            if state.withEngineLock({ $0.now >= deadline }) { return }
        }
    }

    /// Waits, in real time, until a thread sleeps on the clock with a deadline that
    /// `matches`, such as the instant a planned retry is due: the thread has then done
    /// everything it had to do before that time.
    /// - Parameters:
    ///   - timeout: how long to wait in real time.
    ///   - matches: which deadline is awaited, of those later than ``now`` (by default any).
    /// - Returns: whether such a sleeper was found in time.
    public func waitForSleeper(timeout: Duration = .seconds(5),
                               where matches: (Duration) -> Bool = { _ in true }) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            let now = self.now
            if sleepingDeadlines.contains(where: { $0 > now && matches($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}
