@testable import StreamPlay
import StreamPlayTesting
import Synchronization
import Testing

/// The wait for a URL refresher (after a 403 or 410) on a `ManualClock`: its timeout is the
/// clock's, and an answer or a stop ends it at once. Each wait runs on a thread of its own, as
/// on the engine's input thread; no I/O.
@Suite("URL refresher: the refresh timeout on a manual clock", .timeLimit(.minutes(1)))
struct URLRefresherManualClockTests {
    static let expired = "https://cdn.example/track.mp3?signature=old"
    static let fresh = "https://cdn.example/track.mp3?signature=new"

    /// One `freshURL` call on a thread of its own, and what it returned.
    final class RefreshRun: Sendable {
        let clock: ManualClock
        let wakeUp = WakeUpSignal()
        private let stop = Atomic<Bool>(false)
        /// Outer nil: still waiting; inner nil: it returned nil.
        private let outcome = Mutex<String??>(nil)

        init(clock: ManualClock, timeout: Double, refresh: @escaping URLRefresher) throws {
            self.clock = clock
            let refresher = BlockingURLRefresher(refresh: refresh, clock: clock)
            let started = EngineThread.detached(name: "sp-refresh-test") { [self] in
                let url = refresher.freshURL(replacing: URLRefresherManualClockTests.expired, timeout: timeout,
                                             wakeUp: wakeUp) { stop.load(ordering: .acquiring) }
                outcome.withEngineLock { $0 = .some(url) }
            }
            try #require(started)
        }

        /// Whether `freshURL` has returned.
        var returned: Bool { outcome.withEngineLock { $0 } != nil }
        /// What it returned (nil while it waits, or when it returned nil).
        var url: String? { outcome.withEngineLock { $0 } ?? nil }

        /// A stop, as the engine's: the flag, then the thread's wake-up signal.
        func requestStop() {
            stop.store(true, ordering: .releasing)
            wakeUp.signal()
        }
    }

    /// Whether a refresher's task was cancelled.
    final class CancelLog: Sendable {
        private let value = Atomic<Bool>(false)
        func mark() { value.store(true, ordering: .releasing) }
        var cancelled: Bool { value.load(ordering: .acquiring) }
    }

    /// A refresher that never answers: it waits until cancelled, and logs that it was.
    static func silent(_ log: CancelLog) -> URLRefresher {
        { _ in
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                log.mark()
                throw error
            }
            return fresh
        }
    }

    @Test("a refresher that never answers gives nil only once the clock passes the timeout")
    func silentRefresherTimesOutOnTheClock() async throws {
        let clock = ManualClock(now: .seconds(100))
        let log = CancelLog()
        let run = try RefreshRun(clock: clock, timeout: 30, refresh: Self.silent(log))
        // The wait is planned for 30 s on the clock.
        #expect(await clock.waitForSleeper { $0 == .seconds(130) }, "\(clock.sleepingDeadlines)")
        clock.advance(by: .milliseconds(29_999))
        // A wake-up for another reason: the thread looks at the clock and sleeps again. (The
        // pause only gives it the time to; were it slower, the check below would pass anyway.)
        run.wakeUp.signal()
        try await Task.sleep(for: .milliseconds(50))
        try #require(await clock.waitForSleeper { $0 == .seconds(130) }, "\(clock.sleepingDeadlines)")
        #expect(!run.returned, "gave up before the timeout, at \(clock.now)")
        #expect(!log.cancelled)
        clock.advance(by: .milliseconds(1))
        try #require(await eventually { run.returned }, "still waiting at \(clock.now)")
        #expect(run.url == nil)
        // Given up: the refresher's task is cancelled.
        #expect(await eventually { log.cancelled })
        #expect(clock.sleepingDeadlines.isEmpty)
    }

    @Test("a refresher that answers gives its URL, with no time passing on the clock")
    func answerEndsTheWait() async throws {
        let clock = ManualClock()
        let asked = Mutex<[String]>([])
        let open = Atomic<Bool>(false)
        let run = try RefreshRun(clock: clock, timeout: 30) { expired in
            asked.withEngineLock { $0.append(expired) }
            while !open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            return Self.fresh
        }
        // Asleep until the timeout, the refresher not answering yet.
        #expect(await clock.waitForSleeper { $0 == .seconds(30) }, "\(clock.sleepingDeadlines)")
        #expect(!run.returned)
        open.store(true, ordering: .releasing)
        try #require(await eventually { run.returned }, "the answer did not end the wait")
        #expect(run.url == Self.fresh)
        #expect(asked.withEngineLock { $0 } == [Self.expired])
        #expect(clock.now == .zero)
    }

    @Test("a refresher that fails gives nil at once")
    func failureEndsTheWait() async throws {
        struct Refused: Error {}
        let clock = ManualClock()
        let run = try RefreshRun(clock: clock, timeout: 30) { _ in throw Refused() }
        try #require(await eventually { run.returned }, "a failed refresher left it waiting: \(clock.sleepingDeadlines)")
        #expect(run.url == nil)
        #expect(clock.now == .zero)
    }

    @Test("a stop ends the wait at once, the refresher's task cancelled")
    func stopEndsTheWait() async throws {
        let clock = ManualClock()
        let log = CancelLog()
        let run = try RefreshRun(clock: clock, timeout: 30, refresh: Self.silent(log))
        #expect(await clock.waitForSleeper { $0 == .seconds(30) }, "\(clock.sleepingDeadlines)")
        #expect(!run.returned)
        run.requestStop()
        try #require(await eventually { run.returned }, "the stop did not end the wait")
        #expect(run.url == nil)
        #expect(await eventually { log.cancelled })
        #expect(clock.now == .zero)
    }

    @Test("the wait gives the thread's wake-up signal back: a wake-up it consumed is not lost")
    func wakeUpIsGivenBack() async throws {
        let clock = ManualClock()
        let open = Atomic<Bool>(false)
        let run = try RefreshRun(clock: clock, timeout: 30) { _ in
            while !open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            return Self.fresh
        }
        // Asleep on the signal, which the answer gives and the wait consumes.
        #expect(await clock.waitForSleeper { $0 == .seconds(30) }, "\(clock.sleepingDeadlines)")
        open.store(true, ordering: .releasing)
        try #require(await eventually { run.returned })
        #expect(run.url == Self.fresh)
        // The caller's next wait returns at once: the signal is given again after the
        // refresh, as a command that came meanwhile would need.
        #expect(run.wakeUp.wait(timeout: .seconds(2)))
    }
}
