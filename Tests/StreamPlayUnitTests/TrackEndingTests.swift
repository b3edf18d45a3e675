import Testing
@testable import StreamPlay

@Suite("Track ending (play out, hand off, drain)")
struct TrackEndingTests {
    static let failure = PlayerError.connectionLost(url: "http://127.0.0.1/track.mp3", reason: "reset by peer")

    /// Facts of a track whose sink (a real-time one) was opened and whose output runs.
    static func facts(attached: Bool = true, realTime: Bool = true, formatKnown: Bool = true,
                      nearingEndReported: Bool = false, canHandOff: Bool = true) -> TrackEnding.Facts {
        .init(attached: attached, sinkIsRealTime: realTime, formatKnown: formatKnown,
              nearingEndReported: nearingEndReported, canHandOff: canHandOff)
    }

    /// The steps an ending takes, unpaused, until it drains or finishes, the decode loop's
    /// part played by updating the facts as the session would.
    static func steps(_ ending: inout TrackEnding, from start: TrackEnding.Facts) -> [TrackEnding.Step] {
        var facts = start
        var steps: [TrackEnding.Step] = []
        while steps.count < 10 {
            let step = ending.next(facts, paused: false)
            steps.append(step)
            switch step {
            case .reportNearingEnd: facts.nearingEndReported = true
            case .offerHandOff: continue
            case .finish, .drainSink, .waitForResume: return steps
            }
        }
        return steps
    }

    @Test("a track never heard ends at once, or fails with its input's failure, without touching the sink")
    func neverAttached() {
        var ending = TrackEnding()
        ending.begin()
        #expect(ending.isEnding)
        #expect(ending.next(Self.facts(attached: false), paused: true) == .finish(.ended),
                "not even a pause holds it: nothing is queued")
        var failing = TrackEnding()
        failing.begin(failure: Self.failure)
        #expect(failing.next(Self.facts(attached: false), paused: false) == .finish(.failed(Self.failure)))
    }

    @Test("an ending tells the end is near, offers the sink, then drains, and ends")
    func fullSequence() {
        var ending = TrackEnding()
        ending.begin()
        #expect(Self.steps(&ending, from: Self.facts()) == [.reportNearingEnd, .offerHandOff, .drainSink])
        #expect(ending.drained() == .ended)
    }

    @Test("the sink is offered once per drain: a refusal drains, a drain cut short offers it again")
    func offeredAgainAfterInterruption() {
        var ending = TrackEnding()
        ending.begin()
        let facts = Self.facts(nearingEndReported: true)
        #expect(ending.next(facts, paused: false) == .offerHandOff)
        #expect(ending.next(facts, paused: false) == .drainSink, "refused: the drain follows, not a second offer")
        #expect(ending.next(facts, paused: false) == .drainSink,
                "a drain asked again (no interruption) does not offer again")
        ending.drainInterrupted()
        #expect(ending.next(facts, paused: false) == .offerHandOff,
                "the next track may be ready after the drain was cut short")
        #expect(ending.next(facts, paused: false) == .drainSink)
        #expect(ending.next(facts, paused: true) == .waitForResume)
        #expect(ending.next(facts, paused: false) == .offerHandOff, "the next track may be ready after the resume")
    }

    @Test("a failing track is drained and reported, never offered to the next track nor told as nearing its end")
    func failingTrack() {
        var ending = TrackEnding()
        ending.begin(failure: Self.failure)
        #expect(Self.steps(&ending, from: Self.facts()) == [.drainSink])
        #expect(ending.drained() == .failed(Self.failure))
    }

    @Test("a pause on a real-time sink is waited out before anything else; then the ending goes on")
    func pausedWaits() {
        var ending = TrackEnding()
        ending.begin()
        #expect(ending.next(Self.facts(), paused: true) == .waitForResume)
        #expect(ending.next(Self.facts(), paused: true) == .waitForResume)
        #expect(Self.steps(&ending, from: Self.facts()) == [.reportNearingEnd, .offerHandOff, .drainSink])
    }

    @Test("a sink that takes audio faster than real time is not waited on through a pause")
    func pausedFileSink() {
        var ending = TrackEnding()
        ending.begin()
        #expect(ending.next(Self.facts(realTime: false, nearingEndReported: true, canHandOff: false), paused: true)
                == .drainSink)
    }

    @Test("without a next track to offer, or without a known format, the ending drains")
    func noHandOff() {
        var ending = TrackEnding()
        ending.begin()
        #expect(Self.steps(&ending, from: Self.facts(canHandOff: false)) == [.reportNearingEnd, .drainSink])
        var unknown = TrackEnding()
        unknown.begin()
        #expect(Self.steps(&unknown, from: Self.facts(formatKnown: false)) == [.drainSink])
    }

    @Test("a seek taken suspends the ending; one the decoder refused leaves the input's failure to end the track")
    func suspendedBySeek() {
        var ending = TrackEnding()
        ending.begin(failure: Self.failure)
        ending.suspend()
        #expect(!ending.isEnding)
        ending.begin()
        #expect(ending.failure == Self.failure, "decoding ended after the refused seek: the failure stands")
        #expect(ending.next(Self.facts(), paused: false) == .drainSink)
        #expect(ending.drained() == .failed(Self.failure))
    }

    @Test("a seek that landed calls the ending off, failure and all, and the offer made")
    func cancelledBySeek() {
        var ending = TrackEnding()
        ending.begin(failure: Self.failure)
        ending.cancel()
        #expect(!ending.isEnding)
        #expect(ending == TrackEnding(), "the failure is gone with the ending")
        ending.begin()
        #expect(ending.next(Self.facts(nearingEndReported: true), paused: false) == .offerHandOff)
        ending.cancel()
        #expect(ending == TrackEnding(), "so is the offer made")
    }
}
