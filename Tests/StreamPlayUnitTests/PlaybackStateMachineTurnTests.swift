import Testing
@testable import StreamPlay

@Suite("Playback state machine (the decoder thread's turns and the track's end)")
struct PlaybackStateMachineTurnTests {
    static let formatKnown = PlaybackStateMachine.TurnFacts(formatKnown: true)
    static let failure = PlayerError.emptyStream(url: "http://127.0.0.1/cut.mp3")

    @Test("a start time is a seek that waits for the format; a stop wins over it")
    func startTime() {
        var machine = PlaybackStateMachine()
        machine.decodingBegan(startTime: 30)
        #expect(machine.nextTurn(.init()) == .decode, "no format yet: decode until there is one")
        #expect(machine.nextTurn(.init(stopRequested: true, formatKnown: true)) == .stop)
        #expect(machine.nextTurn(Self.formatKnown) == .seek(to: 30))
        #expect(machine.nextTurn(Self.formatKnown) == .decode, "the seek was handed over")
        var fromStart = PlaybackStateMachine()
        fromStart.decodingBegan(startTime: 0)
        #expect(fromStart.pendingSeek == nil)
    }

    @Test("a decoder that starts over from the beginning seeks again once the format is known")
    func seekFromStart() {
        var machine = PlaybackStateMachineTests.playing()
        _ = machine.seek(to: 12)
        #expect(machine.nextTurn(Self.formatKnown) == .seek(to: 12))
        #expect(machine.seekRestartsFromStart(to: 12, at: PlaybackStateMachineTests.start) == [])
        #expect(machine.output.framesBeforeStart == 100, "output starts over")
        #expect(machine.nextTurn(.init()) == .decode)
        #expect(machine.nextTurn(Self.formatKnown) == .seek(to: 12))
    }

    @Test("a seek taken while ending suspends the ending; one that does not land leaves the input's failure to end the track")
    func seekSuspendsEnding() {
        var machine = PlaybackStateMachineTests.playing()
        machine.lastAudioDecoded(failure: Self.failure)
        #expect(machine.nextTurn(Self.formatKnown) == .endTrack)
        _ = machine.seek(to: 3)
        #expect(machine.nextTurn(Self.formatKnown) == .seek(to: 3))
        #expect(!machine.ending.isEnding)
        #expect(machine.nextTurn(Self.formatKnown) == .decode, "refused: decoding goes on")
        machine.lastAudioDecoded()
        #expect(machine.nextEndingStep(PlaybackStateMachineTests.lastTrack).0 == .drainSink)
        #expect(machine.drained() == .failed(Self.failure))
    }

    @Test("a pause waits only on a sink that takes audio as fast as it comes; a rebuffer makes the turn a refill")
    func pauseAndRefill() {
        var machine = PlaybackStateMachineTests.playing()
        _ = machine.pause()
        #expect(machine.nextTurn(.init(formatKnown: true, sinkIsRealTime: false)) == .waitWhilePaused)
        #expect(machine.nextTurn(Self.formatKnown) == .decode, "a real-time sink is corked: decoding fills it")
        _ = machine.resume()
        _ = machine.inputStarving(spareSeconds: 0, at: PlaybackStateMachineTests.start)
        #expect(machine.nextTurn(Self.formatKnown) == .refill)
        #expect(machine.nextTurn(.init(formatKnown: true, inputInfoWaiting: true)) == .applyInputInfo)
        _ = PlaybackStateMachineTests.refill(&machine, at: PlaybackStateMachineTests.start)
        #expect(machine.nextTurn(Self.formatKnown) == .decode)
    }

    @Test("the ending waits out a pause, tells the end is near, offers the sink once per drain, and drains")
    func endingSteps() {
        var machine = PlaybackStateMachineTests.playing()
        _ = machine.pause()
        machine.lastAudioDecoded()
        var facts = PlaybackStateMachineTests.lastTrack
        facts.nearingEndReported = false
        facts.canHandOff = true
        #expect(machine.nextEndingStep(facts).0 == .waitForResume)
        facts.sinkIsRealTime = false
        #expect(machine.nextEndingStep(facts).0 == .reportNearingEnd, "a file sink takes its audio while paused")
        facts.sinkIsRealTime = true
        _ = machine.resume()
        #expect(machine.nextEndingStep(facts).0 == .reportNearingEnd)
        facts.nearingEndReported = true
        #expect(machine.nextEndingStep(facts).0 == .offerHandOff)
        #expect(machine.nextEndingStep(facts).0 == .drainSink, "declined: drain")
        machine.drainInterrupted()
        #expect(machine.nextEndingStep(facts).0 == .offerHandOff, "offered again after an interrupted drain")
        #expect(machine.phase == .draining, "an interrupted drain is still the drain to the listener")
        #expect(machine.drained() == .ended)
    }

    @Test("an input never attached to the sink ends at once, with its failure")
    func endingUnattached() {
        var machine = PlaybackStateMachine()
        machine.lastAudioDecoded(failure: Self.failure)
        var facts = PlaybackStateMachineTests.lastTrack
        facts.attached = false
        let (step, actions) = machine.nextEndingStep(facts)
        #expect(step == .finish(.failed(Self.failure)))
        #expect(actions == [])
    }

    @Test("the next entry of a playlist begins with output and the ending afresh")
    func nextEntry() {
        var machine = PlaybackStateMachineTests.playing()
        machine.lastAudioDecoded()
        machine.decodingBegan(startTime: 0)
        #expect(machine.output.framesBeforeStart == 1)
        #expect(!machine.ending.isEnding)
        #expect(machine.nextTurn(Self.formatKnown) == .decode)
    }

    @Test("a seek taken before an entry failed, not carried out yet, is carried out on the next entry")
    func seekCarriesOver() {
        var machine = PlaybackStateMachine()
        machine.decodingBegan(startTime: 0)
        _ = machine.seek(to: 40)
        #expect(machine.nextTurn(.init()) == .decode, "taken; no format yet")
        machine.decodingBegan(startTime: 5)
        #expect(machine.nextTurn(Self.formatKnown) == .seek(to: 40), "the listener's seek, not the start time")
        machine.seekCarriedOut()
        #expect(machine.shownSeekTarget == nil)
    }
}
