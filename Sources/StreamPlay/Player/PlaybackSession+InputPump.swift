// The session's feeding, run from inside a decoder that reads its input itself (FFmpeg).

extension PlaybackSession {
    /// Feeds a pulling decoder from the ring, with the same code (``feed(_:buffer:state:)``)
    /// and the same waiting (``awaitInput(decoder:state:)``) as the decode loop.
    final class InputPump: DecoderInputPump {
        unowned let session: PlaybackSession
        let state: DecodeState
        let buffer: UnsafeMutableRawBufferPointer
        unowned let decoder: DecoderChoice
        /// A failure met while feeding, thrown by the decode loop once the decoder returns.
        var failure: PlayerError?

        init(session: PlaybackSession, state: DecodeState, buffer: UnsafeMutableRawBufferPointer, decoder: DecoderChoice) {
            self.session = session
            self.state = state
            self.buffer = buffer
            self.decoder = decoder
        }

        func pumpInput() -> InputPumpResult {
            var state = self.state
            while failure == nil {
                if session.commands.withEngineLock({ $0.stopRequested || ($0.seekTarget != nil && decoder.format != nil) }) {
                    return .interrupted
                }
                do throws(PlayerError) {
                    if state.gate.isRebuffering, !session.refilled(decoder: decoder, state: &state) {
                        session.wake.wait(timeout: 0.05)
                        continue
                    }
                    let fedBefore = state.bytesFed
                    if try session.feed(decoder, buffer: buffer, state: &state) {
                        if state.bytesFed > fedBefore { return .fed }
                        continue
                    }
                } catch {
                    failure = error
                    break
                }
                let generation = state.generation
                switch session.input.control.outcome(of: generation) {
                case nil:
                    session.awaitInput(decoder: decoder, state: &state)
                case .finished?:
                    if session.ring.available(generation: generation) > 0 { continue }
                    return .ended
                case .failed?:
                    if session.ring.available(generation: generation) > 0 { continue }
                    return .failed
                }
            }
            return .failed
        }

        func repositionInput(to offset: Int) {
            var state = self.state
            let generation = state.generation
            let plan = SeekPlanner.bytePlan(offset: offset, inputPosition: state.inputPosition,
                                            buffered: session.ring.available(generation: generation),
                                            supportsRanges: inputIsSeekable,
                                            inputFinished: session.input.control.outcome(of: generation) != nil)
            switch plan {
            case .skip(let to):
                state.skipTo = to == state.inputPosition ? nil : to
            case .restart(let at):
                session.restartInput(at: at, state: &state)
            case .restartFromStart(let skipTo):
                session.restartInput(at: 0, state: &state)
                state.skipTo = skipTo
            }
        }

        var inputIsSeekable: Bool {
            session.input.segmentedPlaylist == nil && session.input.control.info?.supportsRanges == true
        }

        var inputLength: Int? {
            session.input.segmentedPlaylist == nil ? session.input.control.info?.totalLength : nil
        }
    }
}
