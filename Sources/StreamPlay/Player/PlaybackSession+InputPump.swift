// The session's feeding, run from inside a decoder that reads its input itself (FFmpeg).

extension PlaybackSession {
    /// Feeds a pulling decoder from the ring, with the same code (``DecoderFeed/feed()``) and
    /// the same waiting (``awaitInput(decoder:state:)``) as the decode loop.
    final class InputPump: DecoderInputPump {
        unowned let session: PlaybackSession
        let state: DecodeState
        unowned let decoder: DecoderChoice

        init(session: PlaybackSession, state: DecodeState) {
            self.session = session
            self.state = state
            self.decoder = state.feed.decoder
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
            let feed = state.feed
            while feed.pumpFailure == nil {
                if commandPending() { return .interrupted }
                do throws(PlayerError) {
                    if session.output.isRebuffering, !state.searching,
                       !session.refilled(decoder: decoder, state: state) {
                        session.wake.wait(timeout: 0.05)
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
                    session.awaitInput(decoder: decoder, state: state)
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
            session.input.segmentedPlaylist == nil && session.input.control.info?.supportsRanges == true
        }

        var inputLength: Int? {
            session.input.segmentedPlaylist == nil ? session.input.control.info?.totalLength : nil
        }
    }
}
