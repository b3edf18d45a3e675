import Testing
@testable import StreamPlay

@Suite("Playback state machine (phases and the pause overlay)")
struct PlaybackStateMachineTests {
    /// A machine taken through connecting, sniffing and prebuffering to playing.
    static func playing() -> PlaybackStateMachine {
        var machine = PlaybackStateMachine()
        _ = machine.bytesArrived()
        _ = machine.firstAudioDecoded()
        machine.outputOpened(prebufferFrames: 100)
        _ = machine.framesQueued(100)
        return machine
    }

    static let start = ContinuousClock.now

    /// The ending's facts of a track whose end was told near, with no next track.
    static let lastTrack = TrackEnding.Facts(
        attached: true, sinkIsRealTime: true, formatKnown: true, nearingEndReported: true, canHandOff: false)

    /// A rebuffer under way refills (the input has enough, here because it ended): the actions.
    static func refill(_ machine: inout PlaybackStateMachine,
                       at now: ContinuousClock.Instant) -> [PlaybackStateMachine.Action] {
        let facts = PlaybackStateMachine.RefillFacts(
            bufferedBytes: 0, bytesPerSecond: 16_000, ringCapacity: 1 << 20, inputEnded: true)
        return machine.refillProgress(facts, policy: RefillPolicy(standardRefill: 2, prebuffer: 0.1), at: now).1
    }

    /// The last audio is decoded: the actions that come with the ending's first step.
    static func beginEnding(_ machine: inout PlaybackStateMachine) -> [PlaybackStateMachine.Action] {
        machine.lastAudioDecoded()
        return machine.nextEndingStep(lastTrack).1
    }

    @Test("a track goes connecting, sniffing, prebuffering, playing, draining, ended; the listener sees four states")
    func wholeTrack() {
        var machine = PlaybackStateMachine()
        #expect(machine.phase == .connecting)
        #expect(machine.state == .connecting)
        #expect(machine.bytesArrived() == [], "sniffing is still connecting to the listener")
        #expect(machine.phase == .sniffing)
        #expect(machine.firstAudioDecoded() == [.report(.buffering)])
        #expect(machine.phase == .prebuffering)
        machine.outputOpened(prebufferFrames: 100)
        #expect(machine.framesQueued(50) == [.reportBufferingProgress(0.5)])
        #expect(machine.phase == .prebuffering)
        #expect(machine.framesQueued(50) == [.reportBufferingProgress(1), .startSink, .report(.playing)])
        #expect(machine.phase == .playing)
        #expect(Self.beginEnding(&machine) == [], "draining is still playing to the listener")
        #expect(machine.phase == .draining)
        #expect(machine.finished(.ended) == [.report(.ended)])
        #expect(machine.phase == .ended)
    }

    @Test("first bytes and first audio move the phase only forward")
    func onlyForward() {
        var machine = Self.playing()
        #expect(machine.bytesArrived() == [], "bytes after a restart from the start")
        #expect(machine.firstAudioDecoded() == [])
        #expect(machine.phase == .playing)
        var fresh = PlaybackStateMachine()
        #expect(fresh.firstAudioDecoded() == [.report(.buffering)], "audio found before any sniffing")
        #expect(fresh.bytesArrived() == [])
        #expect(fresh.phase == .prebuffering)
    }

    @Test("a starved input pauses the sink and shows buffering; the refill starts it again and is told")
    func rebuffer() {
        var machine = Self.playing()
        #expect(machine.inputStarving(spareSeconds: 0.01, at: Self.start).1 == [], "audio is left above the threshold")
        #expect(machine.inputStarving(spareSeconds: 0, at: Self.start).1 == [.pauseSink, .report(.buffering)])
        #expect(machine.phase == .rebuffering)
        #expect(Self.refill(&machine, at: Self.start + .milliseconds(1500))
                == [.rebufferEnded(seconds: 1.5, told: true), .startSink, .report(.playing)])
        #expect(machine.phase == .playing)
    }

    @Test("starved input: the wait runs until the sink's spare audio is gone; a sink that cannot run out, or a seek's search, waits the longest")
    func inputWait() {
        let longest = PlaybackStateMachine.InputWait.wait(seconds: PlaybackStateMachine.longestInputWait)
        var prebuffering = PlaybackStateMachine()
        _ = prebuffering.firstAudioDecoded()
        prebuffering.outputOpened(prebufferFrames: 100)
        #expect(prebuffering.inputStarving(spareSeconds: 0, at: Self.start) == (longest, []), "output not started")
        var machine = Self.playing()
        #expect(machine.inputStarving(spareSeconds: 0.2, at: Self.start) == (.wait(seconds: 0.2), []))
        #expect(machine.inputStarving(spareSeconds: 3, at: Self.start) == (longest, []))
        #expect(machine.inputStarving(spareSeconds: 0.0001, at: Self.start)
                == (.wait(seconds: PlaybackStateMachine.shortestInputWait), []))
        #expect(machine.inputStarving(spareSeconds: nil, at: Self.start) == (longest, []), "a file sink")
        #expect(machine.inputStarving(spareSeconds: -1, searching: true, at: Self.start) == (longest, []))
        #expect(machine.phase == .playing)
        #expect(machine.inputStarving(spareSeconds: -1, at: Self.start) == (.refill, [.pauseSink, .report(.buffering)]))
        #expect(machine.inputStarving(spareSeconds: -1, at: Self.start) == (longest, []), "already refilling")
    }

    @Test("a refill ends once the policy's bytes are buffered; a stall soon after a refill waits for the standard amount")
    func refillProgress() {
        // A first stall refills 0.2 s (twice the prebuffer), any other 2 s: 3,200 and 32,000 bytes.
        let policy = RefillPolicy(standardRefill: 2, prebuffer: 0.1)
        var facts = PlaybackStateMachine.RefillFacts(
            bufferedBytes: 3_199, bytesPerSecond: 16_000, linkBytesPerSecond: nil, remainingBytes: nil,
            ringCapacity: 1 << 20)
        var machine = Self.playing()
        #expect(machine.refillProgress(facts, policy: policy, at: Self.start).0 == .notRebuffering)
        _ = machine.inputStarving(spareSeconds: 0, at: Self.start)
        let (waiting, none) = machine.refillProgress(facts, policy: policy, at: Self.start)
        #expect(waiting == .waiting(targetBytes: 3_200))
        #expect(none == [])
        #expect(machine.phase == .rebuffering)
        facts.bufferedBytes = 3_200
        let (done, actions) = machine.refillProgress(facts, policy: policy, at: Self.start + .seconds(1))
        #expect(done == .done(targetBytes: 3_200))
        #expect(actions == [.rebufferEnded(seconds: 1, told: true), .startSink, .report(.playing)])
        _ = machine.inputStarving(spareSeconds: 0, at: Self.start + .seconds(6))
        #expect(machine.refillProgress(facts, policy: policy, at: Self.start + .seconds(6)).0
                == .waiting(targetBytes: 32_000), "5 s after the last refill: not a first stall")
    }

    @Test("a refill short of its bytes ends when the input ends, a seek waits, or a stop came")
    func refillCutShort() {
        let policy = RefillPolicy(standardRefill: 2, prebuffer: 0.1)
        let facts = PlaybackStateMachine.RefillFacts(
            bufferedBytes: 0, bytesPerSecond: 16_000, linkBytesPerSecond: nil, remainingBytes: nil, ringCapacity: 1 << 20)
        var ended = facts
        ended.inputEnded = true
        var stopped = facts
        stopped.stopRequested = true
        for cut in ["ended", "seek", "stop"] {
            var machine = Self.playing()
            _ = machine.inputStarving(spareSeconds: 0, at: Self.start)
            if cut == "seek" { #expect(machine.seek(to: 3) == .accepted) }
            let asked = cut == "ended" ? ended : cut == "stop" ? stopped : facts
            #expect(machine.refillProgress(asked, policy: policy, at: Self.start).0 == .done(targetBytes: 3_200), "\(cut)")
            #expect(machine.phase == .playing, "\(cut)")
        }
    }

    @Test("a track shorter than the prebuffer starts output at its end, then drains")
    func shortTrack() {
        var machine = PlaybackStateMachine()
        _ = machine.firstAudioDecoded()
        machine.outputOpened(prebufferFrames: 100)
        _ = machine.framesQueued(30)
        machine.lastAudioDecoded()
        let (step, actions) = machine.nextEndingStep(Self.lastTrack)
        #expect(step == .drainSink)
        #expect(actions == [.reportBufferingProgress(1), .startSink, .report(.playing)])
        #expect(machine.phase == .draining)
        #expect(machine.nextEndingStep(Self.lastTrack).1 == [], "output starts once")

        var paused = PlaybackStateMachine()
        _ = paused.firstAudioDecoded()
        paused.outputOpened(prebufferFrames: 100)
        _ = paused.pause()
        paused.lastAudioDecoded()
        let (pausedStep, pausedActions) = paused.nextEndingStep(Self.lastTrack)
        #expect(pausedStep == .waitForResume)
        #expect(pausedActions == [.reportBufferingProgress(1)], "paused: output starts, the sink stays corked")
        #expect(paused.resume() == [.startSink, .report(.playing)])
    }

    @Test("a new stream's format before output started: the old audio starts and drains first; before the sink is the track's, the format is only adopted")
    func formatChangeBeforeOutput() {
        var machine = PlaybackStateMachine()
        _ = machine.firstAudioDecoded()
        #expect(machine.streamFormatChanged(attached: false) == (.adopt, []),
                "no sink of its own yet (a preloaded track): nothing to play out, the sink left alone")
        machine.outputOpened(prebufferFrames: 100)
        _ = machine.framesQueued(30)
        let (step, actions) = machine.streamFormatChanged(attached: true)
        #expect(step == .drainThenReopen)
        #expect(actions == [.reportBufferingProgress(1), .startSink, .report(.playing)],
                "the old stream was shorter than the prebuffer: it is heard before the sink reopens")
        machine.outputOpened(prebufferFrames: 100)
        #expect(machine.output.framesBeforeStart == 100, "the new stream prebuffers afresh")

        var playing = Self.playing()
        #expect(playing.streamFormatChanged(attached: true) == (.drainThenReopen, []), "output runs: only the drain")

        var paused = PlaybackStateMachine()
        _ = paused.firstAudioDecoded()
        paused.outputOpened(prebufferFrames: 100)
        _ = paused.framesQueued(30)
        _ = paused.pause()
        #expect(paused.streamFormatChanged(attached: true) == (.drainThenReopen, [.reportBufferingProgress(1)]),
                "paused: output starts, the sink stays paused until the resume")
    }

    @Test("a seek during a rebuffer ends it untold; output waits for the new position's prebuffer")
    func seekDuringRebuffer() {
        var machine = Self.playing()
        _ = machine.inputStarving(spareSeconds: 0, at: Self.start)
        #expect(machine.seekLanded(at: Self.start + .milliseconds(250)) == [.rebufferEnded(seconds: 0.25, told: false)])
        #expect(machine.output.framesBeforeStart == 100)
        #expect(machine.framesQueued(100) == [.reportBufferingProgress(1), .startSink, .report(.playing)])
    }

    @Test("pause corks the sink at once and overlays any phase; resume restarts only running output")
    func pauseOverlay() {
        var machine = Self.playing()
        #expect(machine.pause() == [.pauseSink, .report(.paused)])
        #expect(machine.pause() == [], "a second pause does nothing")
        #expect(machine.state == .paused)
        #expect(machine.resume() == [.startSink, .report(.playing)])
        #expect(machine.resume() == [], "a second resume does nothing")

        var prebuffering = PlaybackStateMachine()
        _ = prebuffering.firstAudioDecoded()
        #expect(prebuffering.pause() == [.pauseSink, .report(.paused)])
        #expect(prebuffering.resume() == [.report(.buffering)], "output had not started: the sink stays stopped")
    }

    @Test("phases change under a pause without a report; the resume tells the latest")
    func changesUnderPause() {
        var machine = PlaybackStateMachine()
        _ = machine.firstAudioDecoded()
        machine.outputOpened(prebufferFrames: 10)
        _ = machine.pause()
        #expect(machine.framesQueued(10) == [.reportBufferingProgress(1)],
                "the prebuffer filled while paused: the sink waits for the resume")
        #expect(machine.phase == .playing)
        #expect(machine.inputStarving(spareSeconds: 0, at: Self.start)
                == (.wait(seconds: PlaybackStateMachine.longestInputWait), []), "a corked sink does not run out")
        #expect(machine.resume() == [.startSink, .report(.playing)])
        #expect(machine.inputStarving(spareSeconds: 0, at: Self.start) == (.refill, [.pauseSink, .report(.buffering)]))
        #expect(machine.pause() == [.pauseSink, .report(.paused)])
        #expect(Self.refill(&machine, at: Self.start) == [.rebufferEnded(seconds: 0, told: true)],
                "refilled under the pause: told as a rebuffer, the sink left paused, the phase not told")
        #expect(machine.phase == .playing)
        #expect(machine.resume() == [.startSink, .report(.playing)])
    }

    @Test("the end of the play is told even while paused, and nothing moves after it")
    func finalUnderPause() {
        var machine = Self.playing()
        _ = machine.pause()
        _ = Self.beginEnding(&machine)
        #expect(machine.phase == .draining)
        #expect(machine.finished(.ended) == [.report(.ended)])
        #expect(machine.state == .ended)
        #expect(machine.resume() == [], "nothing to resume")
        #expect(machine.pause() == [])
        // A play that ends while it waits for a refill tells no refill after the end.
        var rebuffering = Self.playing()
        #expect(rebuffering.inputStarving(spareSeconds: 0, at: Self.start).0 == .refill)
        _ = rebuffering.pause()
        #expect(rebuffering.finished(.stopped) == [.report(.idle)])
        #expect(Self.refill(&rebuffering, at: Self.start) == [], "no refill told after the end")
        var ended = Self.playing()
        _ = Self.beginEnding(&ended)
        _ = ended.finished(.ended)
        #expect(ended.inputStarving(spareSeconds: 0, at: Self.start)
                == (.wait(seconds: PlaybackStateMachine.longestInputWait), []), "no pause after the end")
        #expect(!ended.output.isRebuffering)
        #expect(machine.finished(.failed(.emptyStream(url: "x"))) == [], "the first end stands")
        #expect(machine.phase == .ended)
    }

    @Test("a seek calls a drain off without changing what the listener sees")
    func seekDuringDrain() {
        var machine = Self.playing()
        _ = Self.beginEnding(&machine)
        #expect(machine.phase == .draining)
        #expect(machine.seek(to: 5) == .accepted)
        #expect(machine.nextTurn(.init(formatKnown: true)) == .seek(to: 5), "the seek comes before the ending")
        #expect(machine.seekLanded(at: Self.start) == [])
        #expect(machine.phase == .playing)
        #expect(!machine.ending.isEnding, "the ending is called off")
        #expect(machine.nextTurn(.init(formatKnown: true)) == .decode)
        var playing = Self.playing()
        #expect(playing.seekLanded(at: Self.start) == [])
        #expect(playing.phase == .playing, "a seek while playing keeps playing")
    }

    @Test("final phases: a hand-off reads as ended, a stop as idle, a failure with its error")
    func finals() {
        let error = PlayerError.emptyStream(url: "http://127.0.0.1/empty.mp3")
        for (final, state) in [(PlaybackStateMachine.Phase.handedOff, PlayerState.ended),
                               (.stopped, .idle), (.failed(error), .failed(error))] {
            var machine = Self.playing()
            #expect(machine.finished(final) == [.report(state)])
            #expect(machine.state == state)
        }
        var machine = Self.playing()
        #expect(machine.finished(.draining) == [], "only a final phase ends the play")
        #expect(machine.phase == .playing)
    }

    @Test("a seek is taken until the play is over; after its end it needs a new play")
    func seekAnswers() {
        var machine = Self.playing()
        _ = machine.pause()
        #expect(machine.seek(to: 12) == .accepted, "a paused play seeks")
        #expect(machine.seekTarget == 12)
        _ = machine.finished(.ended)
        #expect(machine.seek(to: 3) == .needsNewPlay)
        var handedOff = Self.playing()
        _ = handedOff.finished(.handedOff)
        #expect(handedOff.seek(to: 3) == .needsNewPlay)
        var stopped = Self.playing()
        _ = stopped.finished(.stopped)
        #expect(stopped.seek(to: 3) == .dropped)
        #expect(stopped.seekTarget == nil)
        var connecting = PlaybackStateMachine()
        #expect(connecting.seek(to: -4) == .accepted, "a seek before the first audio waits for it")
        #expect(connecting.seekTarget == 0, "before the start is the start")
    }

    @Test("a live stream refuses seeks once its input says so, and keeps no target")
    func liveRefusal() {
        var machine = Self.playing()
        machine.inputInfo(isEndless: true)
        #expect(machine.seek(to: 30) == .refusedLive)
        #expect(machine.seekTarget == nil)
        #expect(machine.shownSeekTarget == nil, "the position stays the timeline's")
        var onDemand = Self.playing()
        onDemand.inputInfo(isEndless: false)
        #expect(onDemand.seek(to: 30) == .accepted)
    }

    @Test("the position shows the target until the seek is carried out, or the newest target while another waits")
    func shownTarget() {
        var machine = Self.playing()
        _ = machine.seek(to: 10)
        #expect(machine.nextTurn(.init(formatKnown: true)) == .seek(to: 10))
        #expect(machine.nextTurn(.init(formatKnown: true)) == .decode, "a seek is taken once")
        #expect(machine.shownSeekTarget == 10, "taken, not carried out yet")
        _ = machine.seek(to: 20)
        machine.seekCarriedOut()
        #expect(machine.shownSeekTarget == 20, "the seek to 10 is done, the one to 20 waits")
        #expect(machine.nextTurn(.init(formatKnown: true)) == .seek(to: 20))
        machine.seekCarriedOut()
        #expect(machine.shownSeekTarget == nil)
    }

    @Test("a stop before any audio tells idle straight from connecting")
    func stopWhileConnecting() {
        var machine = PlaybackStateMachine()
        _ = machine.pause()
        #expect(machine.finished(.stopped) == [.report(.idle)])
    }
}
