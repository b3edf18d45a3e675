import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// One play of one track: the input thread, the ring, and the decoder thread that drives them
/// into the sink.
///
/// The decoder thread owns the decoder and the decode loop; other threads only post commands
/// (through ``playback``) and read the ``timeline``. What the loop does next, where the play
/// is, and when output starts, pauses and ends are ``PlaybackStateMachine``'s to decide, under
/// the commands lock; ``PlaybackControl`` carries out its actions after releasing it. The
/// decoder's input side is a ``DecoderFeed``, its sink side a ``TrackOutput``; what a location
/// stands for is ``PlaybackSourceResolver``'s. The decoder thread sleeps on ``wake`` when it
/// has nothing to do, and in the sink when the sink is full.
final class PlaybackSession: QueueSession, @unchecked Sendable {
    /// What the session tells its ``Player``.
    enum Report: Sendable {
        case state(PlayerState)
        case format(AudioFormat)
        case duration(Double)
        case bufferingProgress(Double)
        case seeked(Double)
        case metadata(StreamMetadata)
        case seekRefused(PlayerError)
        case rebuffered(Double)
        /// The end of the track is near (its input is complete and little audio is left): the
        /// time to open the next one.
        case nearingEnd
        /// The sink played this session's first frame: a gapless hand-off to it is heard.
        case firstAudioHeard
    }

    let location: MediaLocation
    let length: Double?
    let urlRefresher: URLRefresher?
    let configuration: PlayerConfiguration
    let sink: any AudioSink
    /// The state machine under its lock, the commands, and the player's reports, in order.
    let playback: PlaybackControl
    /// The sink side: opening, writing, a new format, the ending and its hand-off.
    let trackOutput: TrackOutput
    let startTime: Double
    let wake = ThreadSignal()
    /// Reports the track's names from its tags.
    let names: TrackNamesReporter
    let ring: ByteRing
    /// Made on the decoder thread once the location is known to be audio (not a playlist).
    var input: (any InputSource)!
    /// What ``input`` reads (one entry of a playlist). Decoder thread only.
    var playingSource: PlaybackSource?
    let thread = Mutex<EngineThread?>(nil)
    /// `false` while the session is preloaded as the next track: it connects and decodes its
    /// first audio, but leaves the sink (which the playing track owns) alone until activated.
    let activated: Atomic<Bool>
    /// The format of a preloaded session's first audio, once decoded and waiting.
    let waitingFormat = Mutex<AudioFormat?>(nil)
    var logger: Logger { configuration.logger }

    /// Where the play is in the track: written by the decoder thread, read by any thread.
    let timeline = PlaybackTimeline()
    /// Watches for the first audio heard after an activation.
    let firstAudioWatch: FirstAudioWatch
    /// Reconnects of this play's input, written by the input thread, read by any thread.
    let reconnects = Atomic<Int>(0)

    /// - Parameters:
    ///   - preload: start as the next track: decode the first audio, then wait for ``activate()``.
    ///   - handOff: see ``TrackOutput/handOff``.
    init(location: MediaLocation, startTime: Double, length: Double?, sink: any AudioSink,
         configuration: PlayerConfiguration, urlRefresher: URLRefresher?,
         preload: Bool = false, handOff: (@Sendable (AudioFormat) -> Bool)? = nil,
         report: @escaping @Sendable (Report) -> Void) {
        self.activated = Atomic(!preload)
        self.urlRefresher = urlRefresher
        self.location = location
        self.startTime = max(startTime, 0)
        self.length = length
        self.sink = sink
        self.configuration = configuration
        playback = PlaybackControl(sink: sink, notifyPlayer: report)
        trackOutput = TrackOutput(playback: playback, sink: sink, timeline: timeline,
                                  configuration: configuration, wake: wake, handOff: handOff)
        firstAudioWatch = FirstAudioWatch(playback: playback, trackOutput: trackOutput)
        names = TrackNamesReporter(playback: playback, configuration: configuration)
        let wake = self.wake
        ring = ByteRing(capacity: configuration.inputBufferCapacity) { wake.signal() }
    }

    /// Starts the decoder thread; it starts the input. Does nothing once stopped.
    func start() {
        thread.withEngineLock { thread in
            guard thread == nil, !isStopRequested else { return }
            thread = EngineThread(name: "sp-decoder") { [self] in run() }
        }
    }

    /// Lets a preloaded session take the sink and play.
    func activate() {
        activated.store(true, ordering: .releasing)
        wake.signal()
        firstAudioWatch.start()
    }

    /// The format of a preloaded session's first audio, when it is decoded and waiting.
    var readyFormat: AudioFormat? { waitingFormat.withEngineLock { $0 } }

    // MARK: Commands (any thread)

    /// Asks for audio from `seconds` on.
    /// - Returns: `false` if the track has already ended, so a seek needs a new session.
    func seek(to seconds: Double) -> Bool {
        let answer = playback.decide { commands -> (PlaybackStateMachine.SeekAnswer, [PlaybackControl.Effect]) in
            let answer = commands.machine.seek(to: seconds)
            guard answer == .refusedLive else { return (answer, []) }
            return (answer, [.report(.seekRefused(.seekNotSupported(reason: "\(location) is a live stream")))])
        }
        // A live stream's refusal leaves the audio under way alone.
        if answer == .refusedLive { return true }
        // Only a sink that takes audio can be blocked in a write; before that, an interrupt
        // would cut short the connection to the sound server, which only a stop may do.
        if timeline.isOpen { sink.interrupt() }
        wake.signal()
        return answer != .needsNewPlay
    }

    /// Ends the play and waits for the engine threads to finish.
    func stop() {
        let claimed = playback.requestStop()
        if claimed && !trackOutput.handedOff.load(ordering: .acquiring) { sink.interrupt() }
        wake.signal()
        names.wakeUp.signal()
        thread.withEngineLock { $0 }?.join()
        firstAudioWatch.stop()
    }

    /// Whether the play was asked to stop.
    var isStopRequested: Bool { playback.isStopRequested }

    /// Pauses or resumes. The sink reacts at once; the decoder thread learns on its next turn.
    func setPaused(_ paused: Bool) {
        playback.decide { paused ? $0.pause() : $0.resume() }
        wake.signal()
    }

    /// Seconds heard so far (``PlaybackTimeline/position(latency:)``); while a seek is
    /// pending, its target, and before the first audio, the start time if there is one.
    var position: Double? {
        if let target = playback.withMachine({ $0.shownSeekTarget }) { return target }
        return timeline.position { sink.latencyFrames } ?? (startTime > 0 ? startTime : nil)
    }

    /// Seconds of earlier audio the sink plays before this session's first frame: the tail of
    /// the track that handed the sink over. 0 once this session's audio is heard; `nil` before
    /// the format is known.
    var secondsBeforeFirstAudio: Double? { trackOutput.secondsBeforeFirstAudio }

    /// Seconds into the track where this session's audio ends: all that it wrote. Read after a
    /// gapless hand-off, when it writes no more; `nil` before the format is known.
    var writtenEnd: Double? { timeline.writtenEnd }

    /// Rebuffers and reconnects of this play so far.
    var statistics: (rebuffers: Int, rebufferSeconds: Double, reconnects: Int) {
        (playback.rebuffers.load(ordering: .relaxed),
         Double(playback.rebufferMilliseconds.load(ordering: .relaxed)) / 1000,
         reconnects.load(ordering: .relaxed))
    }

    /// How full the input buffer is, 0 to 1.
    var bufferFill: Double {
        Double(ring.available) / Double(ring.capacity)
    }

    // MARK: Decoder thread

    func run() {
        // The sound server's handshake runs while the input connects. Not for a preloaded
        // session: the playing track has the sink, already open.
        if activated.load(ordering: .acquiring) { sink.prepare() }
        let result = Result { () throws(PlayerError) -> PlaybackStateMachine.Phase in
            let candidates = try PlaybackSourceResolver(
                location: location, configuration: configuration, urlRefresher: urlRefresher, wakeUp: wake,
                isStopped: { [self] in isStopRequested }).resolve()
            var lastError: PlayerError?
            for candidate in candidates {
                input = makeInput(for: candidate)
                playingSource = candidate
                do throws(PlayerError) {
                    return try decodeLoop()
                } catch {
                    // A playlist entry that does not play before any audio was heard: try the next.
                    input.stop()
                    lastError = error
                    if timeline.hasWritten || isStopRequested { throw error }
                    ring.reset()
                }
            }
            throw lastError ?? .notAudio(url: location.description, reason: "nothing to play")
        }
        input?.stop()
        input = nil
        switch result {
        case .success(let final):
            if final == .ended { timeline.markDrained() }
            if final == .ended || final == .stopped, trackOutput.ownsSink {
                sink.flush()
            }
            finish(final == .ended && trackOutput.handedOff.load(ordering: .acquiring) ? .handedOff : final)
        case .failure where isStopRequested:
            // Whatever failed while stopping (an interrupted connection) is part of the stop.
            if trackOutput.ownsSink { sink.flush() }
            finish(.stopped)
        case .failure(let error):
            if trackOutput.ownsSink { sink.flush() }
            logger.debug("play failed", metadata: ["location": "\(location)", "error": "\(error)"])
            finish(.failed(error))
        }
    }

    /// The play is over: `final` is what the listener is told last.
    private func finish(_ final: PlaybackStateMachine.Phase) {
        playback.decide { $0.finished(final) }
    }

    /// The loop of the decoder thread. Returns `.ended`, or `.stopped` when stopped.
    func decodeLoop() throws(PlayerError) -> PlaybackStateMachine.Phase {
        let decoder = try makeDecoder()
        let inputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MPG123Decoder.feedSize, alignment: 16)
        defer { inputBuffer.deallocate() }
        let feed = DecoderFeed(
            ring: ring, input: input, decoder: decoder, buffer: inputBuffer, url: location.description,
            configuration: configuration,
            timeline: timeline,
            firstBytesArrived: { [playback] in playback.decide { $0.bytesArrived() } })
        let state = DecodeState(feed: feed)
        // The tag's event, if one is on its way, comes before the end the caller reports.
        defer { state.trailingTagReader?.join() }
        playback.withMachine { $0.decodingBegan(startTime: startTime) }
        input.start(at: 0, generation: feed.generation)

        let waiter = InputWaiter(playback: playback, sink: sink, wake: wake, configuration: configuration)
        let pump = RingInputPump(playback: playback, state: state, waiter: waiter, wake: wake)
        feed.pump = pump
        // The feed and an FFmpeg decoder hold the pump without owning it: it must outlive the
        // loop, which an optimised build would not otherwise guarantee after its last use here.
        defer { withExtendedLifetime(pump) {} }
        // Whatever the decoder chosen, its chunks fit (mpg123's are smaller than FFmpeg's).
        let pcmSize = max(decoder.preferredBufferSize, FFmpegDecoder.bufferSize)
        let pcm = UnsafeMutableRawBufferPointer.allocate(byteCount: pcmSize, alignment: 16)
        defer { pcm.deallocate() }

        while true {
            // A preloaded session waiting for its turn must not clear an interrupt meant for the
            // session that writes into the shared sink.
            if activated.load(ordering: .acquiring) && !trackOutput.handedOff.load(ordering: .acquiring) {
                sink.clearInterrupt()
            }
            var facts = PlaybackStateMachine.TurnFacts(
                formatKnown: decoder.format != nil, sinkIsRealTime: sink.isRealTime,
                inputInfoWaiting: !state.infoApplied && input.control.info != nil)
            let step = playback.commands.withEngineLock { commands in
                facts.stopRequested = commands.stopRequested
                state.output = commands.machine.output
                return commands.machine.nextTurn(facts)
            }
            switch step {
            case .stop:
                return .stopped
            case .seek(let target):
                guard let format = decoder.format else { continue }
                try performSeek(to: target, format: format, decoder: decoder, state: state)
            case .waitWhilePaused:
                wake.wait(timeout: 1)
            case .applyInputInfo:
                guard let info = input.control.info else { continue }
                try apply(info, decoder: decoder, state: state)
            case .endTrack:
                if try trackOutput.finishPlayback(state: state) { return .ended }
            case .refill:
                if !waiter.refilled(state: state) { wake.wait(timeout: 0.05) }
            case .decode:
                if let end = try decodeNext(decoder, into: pcm, state: state, waiter: waiter) { return end }
            }
        }
    }

    /// Applies the input's response, once: its content type must be audio; its length goes to
    /// the decoder and its duration to the player.
    private func apply(_ info: InputInfo, decoder: DecoderChoice, state: DecodeState) throws(PlayerError) {
        state.infoApplied = true
        playback.withMachine { $0.inputInfo(isEndless: info.isEndless) }
        if let type = info.textContentType {
            throw .notAudio(url: location.description, reason: "the server sent \(type)")
        }
        if let total = info.totalLength { decoder.setInputLength(total) }
        if let duration = info.duration {
            state.durationReported = true
            playback.report(.duration(duration))
        }
    }

    /// Decodes the next chunk and carries out what came of it: a format to open the sink with,
    /// tags, audio to deliver, or input to feed (and, when the input ended, what
    /// ``TrackEndPlanner`` makes of that). Returns the play's end when it ended here: stopped
    /// while the sink opened.
    private func decodeNext(_ decoder: DecoderChoice, into pcm: UnsafeMutableRawBufferPointer,
                            state: DecodeState, waiter: InputWaiter) throws(PlayerError) -> PlaybackStateMachine.Phase? {
        let feed = state.feed
        switch try feed.decode(into: pcm) {
        case .formatChanged:
            guard let format = decoder.format else { return nil }
            let previous = state.format
            state.format = format
            if let length, length > 0 {
                state.endFrame = format.frames(forSeconds: startTime + length)
            }
            if let previous {
                // A new stream within the input (an HLS discontinuity).
                try trackOutput.switchFormat(from: previous, to: format, state: state)
                return nil
            }
            reportDuration(decoder: decoder, state: state)
            names.report(decoder: decoder, state: state, source: playingSource, info: input.control.info)
            if playback.withMachine({ $0.pendingSeek }) == nil { timeline.rebase(at: 0) }
            playback.decide { $0.firstAudioDecoded() }
        case .tagsChanged:
            // Reported as the stream's first audio goes to the sink, not when it was demuxed.
            if let tags = decoder.tags { playback.report(.metadata(tags)) }
        case .audio(let byteCount, let decodedFrame):
            guard let format = decoder.format else { return nil }
            if !state.attached {
                guard try attach(format: format, state: state) else { return .stopped }
            }
            if !state.durationReported { reportDuration(decoder: decoder, state: state) }
            var chunk = UnsafeRawBufferPointer(rebasing: pcm[..<byteCount])
            var firstFrame = decodedFrame
            if let target = state.discardBeforeFrame {
                // After a segment seek: decoded from the segment's start, heard from the target.
                guard case .from(let byte, let frame) = SeekPlanner.heardPart(
                    ofChunkAt: firstFrame, byteCount: byteCount, bytesPerFrame: format.bytesPerFrame, targetFrame: target
                ) else { return nil }
                chunk = UnsafeRawBufferPointer(rebasing: chunk[byte...])
                firstFrame = frame
                state.discardBeforeFrame = nil
            }
            if try trackOutput.deliver(pcm: chunk, firstFrame: firstFrame, format: format, state: state) {
                playback.withMachine { $0.lastAudioDecoded() }
            }
        case .needMore:
            if try feed.feed() {
                trackOutput.checkNearingEnd(decoder: decoder, state: state)
                return nil
            }
            let end: TrackEndPlanner.InputEnd
            switch feed.outcome {
            case nil:
                waiter.awaitInput(state: state)
                return nil
            case .finished?: end = .finished
            case .failed(let error)?: end = .failed(error)
            }
            let facts = TrackEndPlanner.Facts(
                bytesInRing: feed.buffered,
                bytesHeldForSniffing: feed.sniffed?.isEmpty == false, formatKnown: decoder.format != nil,
                bytesFed: feed.bytesFed, audioQueued: state.output.hasQueuedAudio,
                url: location.description)
            try follow(TrackEndPlanner.inputEnded(end, facts: facts), state: state)
        case .finished:
            try follow(TrackEndPlanner.decoderFinished(formatKnown: decoder.format != nil, url: location.description),
                       state: state)
        }
        return nil
    }

    /// Opens the sink for the first audio (``TrackOutput/open(format:state:)``). A preloaded
    /// session first waits, its first audio decoded, until it is activated. Returns `false`
    /// when stopped while waiting.
    private func attach(format: AudioFormat, state: DecodeState) throws(PlayerError) -> Bool {
        if !activated.load(ordering: .acquiring) {
            waitingFormat.withEngineLock { $0 = format }
            while !activated.load(ordering: .acquiring) {
                if isStopRequested { return false }
                wake.wait(timeout: 0.1)
            }
        }
        // Activated and stopped at once: a stop that came first wins, before the sink is touched.
        return try trackOutput.open(format: format, state: state)
    }

    private func reportDuration(decoder: any AudioDecoder, state: DecodeState) {
        guard let total = decoder.totalFrames, let format = decoder.format else { return }
        state.durationReported = true
        playback.report(.duration(format.seconds(forFrames: total)))
    }

    /// Carries out what ``TrackEndPlanner`` decided about the end of the input.
    func follow(_ verdict: TrackEndPlanner.Verdict, state: DecodeState) throws(PlayerError) {
        switch verdict {
        case .decodeRest: return
        case .drain: playback.withMachine { $0.lastAudioDecoded() }
        case .drainThenFail(let error): playback.withMachine { $0.lastAudioDecoded(failure: error) }
        case .fail(let error): throw error
        }
    }

    /// The decoder for this track: libmpg123 until the sniffer sees another container (see
    /// ``DecoderFeed/sniff(_:)``).
    func makeDecoder() throws(PlayerError) -> DecoderChoice {
        DecoderChoice(try MPG123Decoder(replayGain: configuration.replayGain))
    }
}
