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

        /// The command version last seen with no stop and no seek pending: until it changes,
        /// nothing can be pending, and the commands lock is not taken (this runs once per
        /// ``MPG123Decoder/feedSize`` bytes fed).
        private var quietVersion = -1

        /// Whether a stop, or a seek the decoder can carry out, is waiting for the decode loop.
        /// Takes the commands lock only when the commands changed, or something was pending
        /// last time: a seek the loop has not taken yet (after ``pumpInput()`` returned
        /// `.interrupted`), or one that waited for the decoder's format.
        private func commandPending() -> Bool {
            let version = session.commandVersion.load(ordering: .acquiring)
            if version == quietVersion { return false }
            let (stop, seek) = session.commands.withEngineLock { ($0.stopRequested, $0.machine.seekTarget != nil) }
            if !stop && !seek { quietVersion = version }
            return stop || (seek && decoder.format != nil)
        }

        func pumpInput() -> InputPumpResult {
            var state = self.state
            while failure == nil {
                if commandPending() { return .interrupted }
                do throws(PlayerError) {
                    if session.output.isRebuffering, !state.searching,
                       !session.refilled(decoder: decoder, state: &state) {
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
