// Waiting for input: the wake-up before the sink's queue runs out, the pause to refill (the
// sink's low mark), and the refill's end (the ring's high mark, as RefillPolicy sizes it).

extension PlaybackSession {
    /// No input is waiting and more will come: wakes again before the sink's queue runs out,
    /// and pauses it to refill rather than let the sound server underflow again and again.
    func awaitInput(decoder: any AudioDecoder, state: DecodeState) {
        var timeout = 0.5
        let gate = output
        if let format = decoder.format, gate.isStarted, !gate.isRebuffering, !state.searching,
           sink.isRealTime, !isPaused {
            let spare = sink.latencyFrames - format.frames(forSeconds: OutputGate.underrunThreshold)
            decide { $0.inputStarving(spareFrames: spare, at: .now) }
            if output.isRebuffering {
                logger.debug("rebuffering", metadata: ["location": "\(location)"])
                return
            }
            timeout = min(timeout, max(0.005, format.seconds(forFrames: spare)))
        }
        if !ring.announceConsumerWaiting(generation: state.feed.generation) {
            wake.wait(timeout: timeout)
        }
    }

    /// Whether a rebuffer is over: enough input is buffered to play on without flapping (see
    /// ``RefillPolicy``), or the input has ended. Ends it then.
    func refilled(decoder: any AudioDecoder, state: DecodeState) -> Bool {
        let gate = output
        guard gate.isRebuffering else { return true }
        let feed = state.feed
        // The refill reads nothing until it is done: what an earlier request left in the ring
        // (a seek restarted the input meanwhile) must not keep this one's bytes out.
        ring.discardOlderGenerations(than: feed.generation)
        let bytesPerSecond = decoder.bytesPerSecond ?? 16_000
        let available = feed.buffered
        let remaining = input.control.info?.totalLength.map { $0 - (feed.inputPosition + available) }
        feed.noteTransfer(delivered: false)
        // The transfer's rate on the input's clock (the state machine keeps the real one).
        let linkRate = feed.transferRate.bytesPerSecond(at: configuration.clock.now.inSeconds)
        let policy = RefillPolicy(standardRefill: configuration.rebufferRefill, prebuffer: configuration.prebuffer)
        let refill = policy.refillSeconds(bytesPerSecond: Double(bytesPerSecond), linkBytesPerSecond: linkRate,
                                          remainingBytes: remaining,
                                          firstStall: gate.isFirstStall(settledAfter: RefillPolicy.settledAfter))
        let target = RefillPolicy.refillBytes(seconds: refill, bytesPerSecond: bytesPerSecond, ringCapacity: ring.capacity)
        guard available >= target || feed.outcome != nil
                || commands.withEngineLock({ $0.stopRequested || $0.machine.seekTarget != nil }) else { return false }
        logger.debug("refilled", metadata: [
            "buffered": "\(available)", "target": "\(target)", "link": "\(linkRate.map { "\(Int($0)) B/s" } ?? "not measured yet")",
        ])
        decide { $0.refilled(at: .now) }
        return true
    }
}
