// Waiting for input: the wake-up before the sink's queue runs out, the pause to refill (the
// sink's low mark), and the refill's end (the ring's high mark, as RefillPolicy sizes it).

extension PlaybackSession {
    /// No input is waiting and more will come: wakes again before the sink's queue runs out,
    /// and pauses it to refill rather than let the sound server underflow again and again.
    func awaitInput(decoder: any AudioDecoder, state: DecodeState) {
        var timeout = 0.5
        if let format = decoder.format, state.output.isStarted, !state.output.isRebuffering, !state.searching,
           sink.isRealTime, !state.paused {
            let spare = sink.latencyFrames - format.frames(forSeconds: OutputGate.underrunThreshold)
            decide(updating: state) { $0.inputStarving(spareFrames: spare, at: .now) }
            if state.output.isRebuffering {
                logger.debug("rebuffering", metadata: ["location": "\(location)"])
                return
            }
            timeout = min(timeout, max(0.005, format.seconds(forFrames: spare)))
        }
        if !ring.announceConsumerWaiting(generation: state.feed.generation) {
            wake.wait(timeout: timeout)
        }
    }

    /// Whether a rebuffer is over (``PlaybackStateMachine/refillProgress(_:policy:at:)``):
    /// enough input is buffered to play on without flapping, or the input has ended. Ends it then.
    func refilled(decoder: any AudioDecoder, state: DecodeState) -> Bool {
        guard state.output.isRebuffering else { return true }
        let feed = state.feed
        // The refill reads nothing until it is done: what an earlier request left in the ring
        // (a seek restarted the input meanwhile) must not keep this one's bytes out.
        ring.discardOlderGenerations(than: feed.generation)
        let available = feed.buffered
        feed.noteTransfer(delivered: false)
        var facts = PlaybackStateMachine.RefillFacts(
            bufferedBytes: available, bytesPerSecond: decoder.bytesPerSecond ?? 16_000,
            // The transfer's rate on the input's clock (the state machine keeps the real one).
            linkBytesPerSecond: feed.transferRate.bytesPerSecond(at: configuration.clock.now.inSeconds),
            remainingBytes: input.control.info?.totalLength.map { $0 - (feed.inputPosition + available) },
            ringCapacity: ring.capacity, inputEnded: feed.outcome != nil)
        let policy = RefillPolicy(standardRefill: configuration.rebufferRefill, prebuffer: configuration.prebuffer)
        let (progress, output) = decide { commands -> ((PlaybackStateMachine.RefillProgress, OutputGate), [Effect]) in
            facts.stopRequested = commands.stopRequested
            let (progress, actions) = commands.machine.refillProgress(facts, policy: policy, at: .now)
            return ((progress, commands.machine.output), actions.map(Effect.machine))
        }
        state.output = output
        guard case .done(let target) = progress else { return progress == .notRebuffering }
        logger.debug("refilled", metadata: [
            "buffered": "\(available)", "target": "\(target)",
            "link": "\(facts.linkBytesPerSecond.map { "\(Int($0)) B/s" } ?? "not measured yet")",
        ])
        return true
    }
}
