/// How the decoder thread waits for input: the wake-up before the sink's queue runs out, the
/// pause to refill (the sink's low mark), and the refill's end (the ring's high mark, as
/// ``RefillPolicy`` sizes it). Decoder thread only.
///
/// The decisions are ``PlaybackStateMachine``'s; this gathers their facts (the sink's queue,
/// the ring, the transfer's rate) and sleeps as they say. The decode loop and a decoder that
/// reads its input itself (``RingInputPump``) wait through the same one.
struct InputWaiter {
    let playback: PlaybackControl
    let sink: any AudioSink
    /// What the decoder thread sleeps on: new input, or a command, signals it.
    let wake: ThreadSignal
    /// How much a rebuffer refills, from the configuration.
    let refillPolicy: RefillPolicy

    init(playback: PlaybackControl, sink: any AudioSink, wake: ThreadSignal, configuration: PlayerConfiguration) {
        self.playback = playback
        self.sink = sink
        self.wake = wake
        refillPolicy = RefillPolicy(standardRefill: configuration.rebufferRefill, prebuffer: configuration.prebuffer)
    }

    /// No input is waiting and more will come: waits, and wakes again before the sink's queue
    /// runs out, or pauses it to refill, as the state machine decides
    /// (``PlaybackStateMachine/inputStarving(spareSeconds:searching:at:)``).
    func awaitInput(state: DecodeState) {
        // Asked of the sink before the lock: a sink's own code never runs under it. Not asked
        // while the machine would not use it (output not running: its gate only this thread changes).
        let spareSeconds = sink.isRealTime && state.output.isRunning ? state.feed.decoder.format.map { format in
            format.seconds(forFrames: sink.latencyFrames) - OutputGate.underrunThreshold
        } : nil
        let searching = state.searching
        let wait = playback.decide(updating: state) {
            $0.machine.inputStarving(spareSeconds: spareSeconds, searching: searching, at: .now)
        }
        let feed = state.feed
        switch wait {
        case .refill:
            feed.logger.debug("rebuffering", metadata: ["location": "\(feed.url)"])
        case .wait(let seconds):
            if !feed.ring.announceConsumerWaiting(generation: feed.generation) { wake.wait(timeout: seconds) }
        }
    }

    /// Whether a rebuffer is over (``PlaybackStateMachine/refillProgress(_:policy:at:)``):
    /// enough input is buffered to play on without flapping, or the input has ended. Ends it then.
    func refilled(state: DecodeState) -> Bool {
        guard state.output.isRebuffering else { return true }
        let (feed, ring) = (state.feed, state.feed.ring)
        // The refill reads nothing until it is done: what an earlier request left in the ring
        // (a seek restarted the input meanwhile) must not keep this one's bytes out.
        ring.discardOlderGenerations(than: feed.generation)
        let available = feed.buffered
        feed.noteTransfer(delivered: false)
        var facts = PlaybackStateMachine.RefillFacts(
            bufferedBytes: available, bytesPerSecond: feed.decoder.bytesPerSecond ?? 16_000,
            // The transfer's rate on the input's clock (the state machine keeps the real one).
            linkBytesPerSecond: feed.transferRate.bytesPerSecond(at: feed.configuration.clock.now.inSeconds),
            remainingBytes: feed.input.control.info?.totalLength.map { $0 - (feed.inputPosition + available) },
            ringCapacity: ring.capacity, inputEnded: feed.outcome != nil)
        let progress = playback.decide(updating: state) { commands in
            facts.stopRequested = commands.stopRequested
            return commands.machine.refillProgress(facts, policy: refillPolicy, at: .now)
        }
        guard case .done(let target) = progress else { return progress == .notRebuffering }
        feed.logger.debug("refilled", metadata: [
            "buffered": "\(available)", "target": "\(target)",
            "link": "\(facts.linkBytesPerSecond.map { "\(Int($0)) B/s" } ?? "not measured yet")",
        ])
        return true
    }
}
