/// Feeds a decoder that reads its input itself (FFmpeg) from the ring, with the same code
/// (``DecoderFeed/feed()``) and the same waiting (``InputWaiter``) as the decode loop. Runs on
/// the decoder thread, from inside the decoder.
final class RingInputPump: DecoderInputPump {
    let playback: PlaybackControl
    let state: DecodeState
    let waiter: InputWaiter
    /// What the decoder thread sleeps on while a refill waits: new input, or a command.
    let wake: ThreadSignal
    unowned let decoder: DecoderChoice

    init(playback: PlaybackControl, state: DecodeState, waiter: InputWaiter, wake: ThreadSignal) {
        self.playback = playback
        self.state = state
        self.waiter = waiter
        self.wake = wake
        self.decoder = state.feed.decoder
    }

    /// What the pump must know before it feeds more, read under one lock, as the decode loop
    /// reads its turn: whether the decode loop must take over (a stop, or a seek the decoder
    /// can carry out, as it knows the format), and whether output waits for a refill. The
    /// state's copy of the output gate is brought up to date with it.
    private func waiting() -> (forLoop: Bool, forRefill: Bool) {
        let (stop, seek, output) = playback.commands.withEngineLock {
            ($0.stopRequested, $0.machine.seekTarget != nil, $0.machine.output)
        }
        state.output = output
        return (stop || (seek && decoder.format != nil), output.isRebuffering)
    }

    func pumpInput() -> InputPumpResult {
        let feed = state.feed
        while feed.pumpFailure == nil {
            let waiting = waiting()
            if waiting.forLoop { return .interrupted }
            do throws(PlayerError) {
                if waiting.forRefill, !state.searching, !waiter.refilled(state: state) {
                    wake.wait(timeout: 0.05)
                    continue
                }
                let fedBefore = feed.bytesFed
                if try feed.feed() {
                    if feed.bytesFed > fedBefore { return .fed }
                    continue
                }
            } catch {
                feed.pumpFailure = error
                break
            }
            switch feed.outcome {
            case nil:
                waiter.awaitInput(state: state)
            case .finished?:
                if feed.buffered > 0 { continue }
                return .ended
            case .failed?:
                if feed.buffered > 0 { continue }
                return .failed
            }
        }
        return .failed
    }

    func repositionInput(to offset: Int) {
        state.feed.reposition(to: offset, supportsRanges: inputIsSeekable)
    }

    var inputIsSeekable: Bool {
        let input = state.feed.input
        return input.segmentedPlaylist == nil && input.control.info?.supportsRanges == true
    }

    var inputLength: Int? {
        let input = state.feed.input
        return input.segmentedPlaylist == nil ? input.control.info?.totalLength : nil
    }
}
