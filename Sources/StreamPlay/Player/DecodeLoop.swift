import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// The decoder thread's work for one play (``PlaybackSession`` starts the thread and is what
/// the ``Player`` holds): it resolves the location, starts the input, and each turn does the
/// step ``PlaybackStateMachine/nextTurn(_:)`` picks, carrying out what came of it.
///
/// Its parts are shared with the session: the state machine and the commands in
/// ``PlaybackControl``, the sink side in ``TrackOutput``, where the play is in
/// ``PlaybackTimeline``. The decoder's input side is a ``DecoderFeed``, made for each entry the
/// location stands for. It sleeps on ``wake`` when it has nothing to do, and in the sink when
/// the sink is full.
final class DecodeLoop: @unchecked Sendable {
    let location: MediaLocation
    let length: Double?
    let startTime: Double
    let urlRefresher: URLRefresher?
    let configuration: PlayerConfiguration
    let sink: any AudioSink
    let playback: PlaybackControl
    let trackOutput: TrackOutput
    let timeline: PlaybackTimeline
    let names: TrackNamesReporter
    let wake: ThreadSignal
    let ring: ByteRing
    /// Made on the decoder thread once the location is known to be audio (not a playlist).
    var input: (any InputSource)!
    /// What ``input`` reads (one entry of a playlist). Decoder thread only.
    var playingSource: PlaybackSource?
    /// `false` while the play is preloaded as the next track: it connects and decodes its
    /// first audio, but leaves the sink (which the playing track owns) alone until activated.
    let activated: Atomic<Bool>
    /// The format of a preloaded play's first audio, once decoded and waiting.
    let waitingFormat = Mutex<AudioFormat?>(nil)
    /// Reconnects of this play's input, written by the input thread, read by any thread.
    let reconnects = Atomic<Int>(0)
    var logger: Logger { configuration.logger }

    /// - Parameter preload: start as the next track: decode the first audio, then wait until
    ///   ``activated``.
    init(location: MediaLocation, startTime: Double, length: Double?, sink: any AudioSink,
         configuration: PlayerConfiguration, urlRefresher: URLRefresher?, preload: Bool,
         playback: PlaybackControl, trackOutput: TrackOutput, timeline: PlaybackTimeline,
         names: TrackNamesReporter, wake: ThreadSignal) {
        self.location = location
        self.startTime = startTime
        self.length = length
        self.sink = sink
        self.configuration = configuration
        self.urlRefresher = urlRefresher
        self.activated = Atomic(!preload)
        self.playback = playback
        self.trackOutput = trackOutput
        self.timeline = timeline
        self.names = names
        self.wake = wake
        ring = ByteRing(capacity: configuration.inputBufferCapacity) { wake.signal() }
    }

    /// Whether the play was asked to stop.
    var isStopRequested: Bool { playback.isStopRequested }

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
                    return try runTurns()
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
    func runTurns() throws(PlayerError) -> PlaybackStateMachine.Phase {
        names.beginEntry()
        let decoder = try makeDecoder()
        let inputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MPG123Decoder.feedSize, alignment: 16)
        defer { inputBuffer.deallocate() }
        let feed = DecoderFeed(
            ring: ring, input: input, decoder: decoder, buffer: inputBuffer, url: location.description,
            configuration: configuration,
            timeline: timeline,
            firstBytesArrived: { [playback] in playback.decide { $0.bytesArrived() } })
        let state = DecodeState(feed: feed)
        // The tag's event, if one is on its way, comes before the end the caller reports. A play
        // that ends before any audio reached the sink lets the tag's request go now; one that
        // fails has abandoned it (below).
        defer {
            names.allowTrailingTagRequest()
            state.trailingTagReader?.join()
        }
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

        do throws(PlayerError) {
            while true {
                // A preloaded session waiting for its turn must not clear an interrupt meant for
                // the session that writes into the shared sink.
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
        } catch {
            names.abandonTrailingTagRequest()
            throw error
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
            let reachesEnd = try trackOutput.deliver(pcm: chunk, firstFrame: firstFrame, format: format, state: state)
            names.allowTrailingTagRequest()
            if reachesEnd { playback.withMachine { $0.lastAudioDecoded() } }
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
            // A preload: the sink is busy with the playing track, and no start is at stake.
            names.allowTrailingTagRequest()
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
