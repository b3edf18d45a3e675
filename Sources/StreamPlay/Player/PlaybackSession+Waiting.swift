// Waiting for input: the wake-up before the sink's queue runs out, the pause to refill (the
// sink's low mark), and the refill's end (the ring's high mark, as RefillPolicy sizes it).

extension PlaybackSession {
    /// No input is waiting and more will come: waits, and wakes again before the sink's queue
    /// runs out, or pauses it to refill, as the state machine decides
    /// (``PlaybackStateMachine/inputStarving(spareSeconds:searching:at:)``).
    func awaitInput(decoder: any AudioDecoder, state: DecodeState) {
        // Asked of the sink before the lock: a sink's own code never runs under it. Not asked
        // while the machine would not use it (output not running: its gate only this thread changes).
        let spareSeconds = sink.isRealTime && state.output.isRunning ? decoder.format.map { format in
            format.seconds(forFrames: sink.latencyFrames) - OutputGate.underrunThreshold
        } : nil
        let searching = state.searching
        let wait = decide(updating: state) {
            $0.machine.inputStarving(spareSeconds: spareSeconds, searching: searching, at: .now)
        }
        switch wait {
        case .refill:
            logger.debug("rebuffering", metadata: ["location": "\(location)"])
        case .wait(let seconds):
            if !ring.announceConsumerWaiting(generation: state.feed.generation) { wake.wait(timeout: seconds) }
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
        let progress = decide(updating: state) { commands in
            facts.stopRequested = commands.stopRequested
            return commands.machine.refillProgress(facts, policy: refillPolicy, at: .now)
        }
        guard case .done(let target) = progress else { return progress == .notRebuffering }
        logger.debug("refilled", metadata: [
            "buffered": "\(available)", "target": "\(target)",
            "link": "\(facts.linkBytesPerSecond.map { "\(Int($0)) B/s" } ?? "not measured yet")",
        ])
        return true
    }
}
