import StreamPlay
import StreamPlayTesting
import Synchronization
import Testing

/// The input's waits on a `ManualClock`: the stall timeout, Retry-After and the reconnect
/// backoff play out as the test advances the clock, in milliseconds of real time. Every step
/// first waits for the input's thread to be asleep on the clock (it has looked at the time),
/// then checks the server's requests: nothing may be asked for before its time.
@Suite("Scripted input: the input's waits on a manual clock", .timeLimit(.minutes(1)))
struct ScriptedInputManualClockTests {
    let url = ScriptedPlay.url
    let track = ScriptedPlay.track

    /// The requests made so far for the track's bytes.
    func requests(_ server: ScriptedMediaServer) -> [RecordedMediaRequest] {
        ScriptedPlay.requestsWithinTrack(server)
    }

    @Test("a stall is given up only once the clock passes the stall timeout, then resumed at the byte it stopped at")
    func stallFollowsTheClock() async throws {
        let reference = try await ScriptedPlay.reference()
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .stall(atByte: 16_000))
        let play = ScriptedPlay.start(server, configure: {
            $0.clock = clock
            $0.stallTimeout = 10
            $0.reconnect.initialDelay = 0.5
        })
        try #require(await eventually { server.stalledTransfers == 1 })
        // The input notices bytes when it wakes: two turns of its 250 ms look-out, and it has
        // seen the last of them at 0.5 s at the latest.
        for _ in 0..<2 {
            clock.advance(by: .milliseconds(250))
            try #require(await clock.waitForSleeper())
        }
        // 10 s: no more than the stall timeout without a byte.
        clock.advance(by: .milliseconds(9_500))
        try #require(await clock.waitForSleeper())
        #expect(requests(server).count == 1, "resumed before the stall timeout: \(requests(server))")
        // 10.6 s: more than 10 s without a byte, whenever the last came. The reconnect waits
        // the backoff's first delay, on the clock too.
        clock.advance(by: .milliseconds(600))
        let retryAt = clock.now + .milliseconds(500)
        #expect(await clock.waitForSleeper { $0 == retryAt }, "\(clock.sleepingDeadlines), now \(clock.now)")
        #expect(requests(server).count == 1)
        clock.advance(by: .milliseconds(500))
        try #require(await eventually { requests(server).count == 2 })
        #expect(requests(server).map(\.rangeStart) == [nil, 16_000])
        let finished = try await play.finish()
        #expect(finished.state.hasEnded, "\(finished.state)")
        #expect(SampleDifference.between(finished.samples, reference.samples) == nil)
    }

    @Test("a first request that stalls before any byte fails with timedOut once the clock passes the stall timeout")
    func stallBeforeAnyByteFailsOnTheClock() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .stall(atByte: 0))
        let play = ScriptedPlay.start(server, configure: {
            $0.clock = clock
            $0.stallTimeout = 10
        })
        try #require(await eventually { server.stalledTransfers == 1 })
        try #require(await clock.waitForSleeper())
        clock.advance(by: .seconds(10))
        try #require(await clock.waitForSleeper())
        #expect(!isFailed(play.player.state), "failed before the stall timeout: \(play.player.state)")
        // Past it: the input sees so at its next look-out, 250 ms on.
        clock.advance(by: .milliseconds(250))
        let finished = try await play.finish()
        #expect(finished.state == .failed(.timedOut(url: url, seconds: 10)), "\(finished.state)")
        #expect(server.requests.count == 1)
    }

    @Test("503 with Retry-After: 5 is asked again only once the clock has moved 5 s")
    func retryAfterFollowsTheClock() async throws {
        let started = ContinuousClock.now
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .status(503, retryAfter: 5))
        let play = ScriptedPlay.start(server, configure: { $0.clock = clock })
        // The retry is planned for 5 s on the clock, and nothing else is asked for meanwhile.
        #expect(await clock.waitForSleeper { $0 == .seconds(5) }, "\(clock.sleepingDeadlines)")
        #expect(requests(server).count == 1)
        clock.advance(by: .milliseconds(4_900))
        try await Task.sleep(for: .milliseconds(20))
        #expect(requests(server).count == 1, "retried before the Retry-After: \(requests(server))")
        #expect(clock.sleepingDeadlines.contains(.seconds(5)))
        clock.advance(by: .milliseconds(100))
        try #require(await eventually { requests(server).count == 2 })
        #expect(requests(server).map(\.rangeStart) == [nil, nil])
        #expect(requests(server).map(\.answer) == [.status(503, retryAfter: 5), .normal])
        let finished = try await play.finish()
        #expect(finished.state.hasEnded, "\(finished.state)")
        // The five seconds were the clock's, not the machine's.
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("the reconnect backoff doubles up to its maximum, each retry made when the clock reaches it")
    func backoffFollowsTheClock() async throws {
        let reference = try await ScriptedPlay.reference()
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        // Cut after 5 000 bytes, then three requests from there cut before any byte.
        server.script(url, .cut(atByte: 5_000), .cut(atByte: 5_000), .cut(atByte: 5_000), .cut(atByte: 5_000))
        let play = ScriptedPlay.start(server, configure: {
            $0.clock = clock
            $0.reconnect.initialDelay = 1
            $0.reconnect.maximumDelay = 3
        })
        // Waits of 1, 2, 3 (4 capped) and 3 s: retries due at 1, 3, 6 and 9 s on the clock.
        let due: [Duration] = [.seconds(1), .seconds(3), .seconds(6), .seconds(9)]
        for (made, retryAt) in due.enumerated() {
            // The cut must have been seen first: before the play's start reaches it, the
            // input's thread idles until 1 s on the clock too, and a retry planned after the
            // clock moved would be due later than `retryAt`.
            try #require(await eventually { play.player.statistics.reconnectCount == made + 1 },
                         "retry \(made + 1) not planned: \(play.player.statistics)")
            #expect(await clock.waitForSleeper { $0 == retryAt }, "retry \(made + 1): \(clock.sleepingDeadlines)")
            clock.advance(by: retryAt - clock.now - .milliseconds(10))
            try await Task.sleep(for: .milliseconds(5))
            #expect(requests(server).count == made + 1, "retry \(made + 1) before its time: \(requests(server))")
            clock.advance(by: .milliseconds(10))
            try #require(await eventually { requests(server).count == made + 2 }, "retry \(made + 1) not made")
        }
        #expect(requests(server).map(\.rangeStart) == [nil, 5_000, 5_000, 5_000, 5_000])
        let finished = try await play.finish()
        #expect(finished.state.hasEnded, "\(finished.state)")
        #expect(SampleDifference.between(finished.samples, reference.samples) == nil)
    }

    @Test("the manual clock wakes a sleeper when an advance reaches its deadline, not before")
    func manualClockWakesAtTheDeadline() async throws {
        let clock = ManualClock(now: .seconds(100))
        let wakeUp = WakeUpSignal()
        let woken = WakeLog()
        // A thread of its own, as the engine's: the sleep blocks it.
        try #require(EngineThread.detached(name: "sp-clock-test") {
            clock.sleep(until: .seconds(102), wakeUp: wakeUp)
            woken.mark(at: clock.now)
        })
        #expect(await clock.waitForSleeper { $0 == .seconds(102) })
        clock.advance(by: .seconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(woken.instant == nil)
        clock.advance(by: .seconds(1))
        try #require(await eventually { woken.instant != nil })
        #expect(woken.instant == .seconds(102))
        #expect(await eventually { clock.sleepingDeadlines.isEmpty })
        // A deadline already past does not block.
        clock.sleep(until: .seconds(50), wakeUp: wakeUp)
    }
}

/// Polls `condition` until it holds, for at most `timeout` of real time.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let start = ContinuousClock.now
    while !condition() {
        guard ContinuousClock.now - start < timeout else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

func isFailed(_ state: PlayerState) -> Bool {
    if case .failed = state { true } else { false }
}

/// When a sleeper woke, on its clock.
final class WakeLog: Sendable {
    private let value = Mutex<Duration?>(nil)
    func mark(at instant: Duration) { value.withEngineLock { $0 = instant } }
    var instant: Duration? { value.withEngineLock { $0 } }
}
