import Testing
@testable import StreamPlay

@Suite("Output gate (prebuffer and rebuffer)")
struct OutputGateTests {
    /// A hand-made clock: instants a fixed distance from one origin.
    static let origin = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant {
        origin + .milliseconds(Int(seconds * 1000))
    }

    @Test("output starts once the prebuffer is queued, with progress by quarters on the way")
    func prebuffer() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 1000)
        #expect(gate.framesBeforeStart == 1000)
        #expect(gate.queued(frames: 100) == [.progress(0.1)])
        #expect(gate.queued(frames: 200) == [.progress(0.3)])
        #expect(gate.queued(frames: 100) == [], "still the same quarter")
        #expect(gate.framesBeforeStart == 600)
        #expect(gate.queued(frames: 600) == [.progress(1), .startSink])
        #expect(gate.isStarted)
        #expect(gate.framesBeforeStart == nil)
        #expect(gate.queued(frames: 600) == [], "after the start, queueing decides nothing")
    }

    @Test("a prebuffer of nothing still waits for one frame")
    func emptyPrebuffer() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 0)
        #expect(gate.framesBeforeStart == 1)
        #expect(gate.queued(frames: 1) == [.progress(1), .startSink])
    }

    @Test("a starving sink is paused only when its spare audio is gone, once, and resumes after the refill")
    func rebuffer() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 10)
        _ = gate.queued(frames: 10)
        #expect(gate.starving(spareSeconds: 0.5, at: Self.at(1)) == [], "audio left: keep playing")
        #expect(gate.starving(spareSeconds: 0, at: Self.at(2)) == [.pauseSink])
        #expect(gate.isRebuffering)
        #expect(gate.starving(spareSeconds: -0.01, at: Self.at(2.1)) == [], "already refilling")
        #expect(gate.refilled(at: Self.at(3.5)) == [.rebuffered(seconds: 1.5), .startSink])
        #expect(!gate.isRebuffering)
        #expect(gate.refilled(at: Self.at(4)) == [], "nothing to end")
    }

    @Test("before output started, starving is the prebuffer's business")
    func starvingBeforeStart() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 1000)
        _ = gate.queued(frames: 10)
        #expect(gate.starving(spareSeconds: 0, at: Self.at(1)) == [])
    }

    @Test("a seek starts output over and ends a rebuffer without reporting it")
    func seekRestarts() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 10)
        _ = gate.queued(frames: 10)
        _ = gate.starving(spareSeconds: 0, at: Self.at(1))
        #expect(gate.restart(at: Self.at(1.25)) == [.rebufferAbandoned(seconds: 0.25)])
        #expect(!gate.isStarted && !gate.isRebuffering)
        #expect(gate.framesBeforeStart == 10)
        #expect(gate.queued(frames: 5) == [.progress(0.5)], "progress is reported afresh")
        #expect(gate.restart(at: Self.at(2)) == [])
    }

    @Test("a first stall: the first since output started, or one long after the last refill; a seek starts afresh")
    func firstStall() {
        var gate = OutputGate()
        gate.opened(prebufferFrames: 10)
        _ = gate.queued(frames: 10)
        _ = gate.starving(spareSeconds: 0, at: Self.at(1))
        #expect(gate.isFirstStall(settledAfter: 30), "the first since the start")
        _ = gate.refilled(at: Self.at(1.2))
        _ = gate.starving(spareSeconds: 0, at: Self.at(2))
        #expect(!gate.isFirstStall(settledAfter: 30), "0.8 s after the last refill")
        _ = gate.refilled(at: Self.at(4))
        _ = gate.starving(spareSeconds: 0, at: Self.at(40))
        #expect(gate.isFirstStall(settledAfter: 30), "36 s of playing since the last refill")
        _ = gate.refilled(at: Self.at(40.2))
        _ = gate.restart(at: Self.at(41))
        _ = gate.queued(frames: 10)
        _ = gate.starving(spareSeconds: 0, at: Self.at(41.5))
        #expect(gate.isFirstStall(settledAfter: 30), "output started over from a prebuffer")
        _ = gate.refilled(at: Self.at(41.7))
        gate.opened(prebufferFrames: 10)
        _ = gate.queued(frames: 10)
        _ = gate.starving(spareSeconds: 0, at: Self.at(42))
        #expect(gate.isFirstStall(settledAfter: 30), "a new stream in the sink (a format change)")
    }
}
