import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// One play of one track: the input thread, the ring, and the decoder thread that drives them
/// into the sink.
///
/// The decoder thread owns the decoder and every decision about the track; other threads only
/// post commands (``Commands``) and read the timing atomics. It sleeps on ``wake`` when it has
/// nothing to do, and in the sink when the sink is full.
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
    }

    /// Commands from control threads, taken by the decoder thread.
    private struct Commands {
        var seekTarget: Double?
        /// The target of a seek not yet carried out: what ``position`` reports meanwhile.
        var shownSeekTarget: Double?
        var paused = false
        var stopRequested = false
        /// The state last reported, before the pause overlay.
        var phase: PlayerState = .connecting
    }

    let location: MediaLocation
    let length: Double?
    let urlRefresher: URLRefresher?
    private let configuration: PlayerConfiguration
    private let sink: any AudioSink
    private let report: @Sendable (Report) -> Void
    private let startTime: Double
    private let wake = ThreadSignal()
    private let commands = Mutex(Commands())
    /// Bumped after every change to `commands`, so that the decoder thread takes the lock only
    /// when there is something new (not once per buffer).
    private let commandVersion = Atomic<Int>(0)
    private let ring: ByteRing
    /// Made on the decoder thread once the location is known to be audio (not a playlist).
    private var input: (any InputSource)!
    private let thread = Mutex<EngineThread?>(nil)
    /// `false` while the session is preloaded as the next track: it connects and decodes its
    /// first audio, but leaves the sink (which the playing track owns) alone until activated.
    private let activated: Atomic<Bool>
    /// The format of a preloaded session's first audio, once decoded and waiting.
    private let waitingFormat = Mutex<AudioFormat?>(nil)
    /// Set once the session has opened the sink; before that, it never touches it.
    private let attached = Atomic<Bool>(false)
    /// Set when the next track took over the sink at this one's end: this one no longer touches it.
    private let handedOff = Atomic<Bool>(false)
    /// Asked at the end of the track, with its format, whether the next track takes over the
    /// sink without a drain (gapless); `true` if it did.
    private let handOff: (@Sendable (AudioFormat) -> Bool)?
    private var logger: Logger { configuration.logger }

    // Timing, written by the decoder thread, read by any thread.
    private let sampleRate = Atomic<Int>(0)
    private let baseFrame = Atomic<Int>(0)
    private let framesWritten = Atomic<Int>(0)
    /// Set once the sink has played everything: the position is then all that was written.
    private let drained = Atomic<Bool>(false)
    /// Set once the input turned out to be a live stream, which cannot seek.
    private let live = Atomic<Bool>(false)
    // Statistics, written by the engine threads, read by any thread.
    private let rebuffers = Atomic<Int>(0)
    private let rebufferMilliseconds = Atomic<Int>(0)
    private let reconnects = Atomic<Int>(0)

    /// Bytes held for ``ContentSniffer``, or fed without the decoder finding a frame, beyond any
    /// ID3v2 tag, before the input is declared not to be audio.
    private static let sniffLimit = 256 * 1024

    /// - Parameters:
    ///   - preload: start as the next track: decode the first audio, then wait for ``activate()``.
    ///   - handOff: see ``handOff``.
    init(location: MediaLocation, startTime: Double, length: Double?, sink: any AudioSink,
         configuration: PlayerConfiguration, urlRefresher: URLRefresher?,
         preload: Bool = false, handOff: (@Sendable (AudioFormat) -> Bool)? = nil,
         report: @escaping @Sendable (Report) -> Void) {
        self.activated = Atomic(!preload)
        self.handOff = handOff
        self.urlRefresher = urlRefresher
        self.location = location
        self.startTime = max(startTime, 0)
        self.length = length
        self.sink = sink
        self.configuration = configuration
        self.report = report
        let wake = self.wake
        ring = ByteRing(capacity: configuration.inputBufferCapacity) { wake.signal() }
    }

    /// What a session can read: a file or URL of audio, or an HLS media playlist.
    enum Source {
        case media(MediaLocation)
        case hls(url: String, playlist: HLSMediaPlaylist)
    }

    /// Starts the input for `source`: libcurl for URLs, a file reader for paths, the segment
    /// reader for HLS.
    private func makeInput(for source: Source) -> any InputSource {
        let wake = self.wake
        let control = InputControl { wake.signal() }
        let onReconnect: @Sendable () -> Void = { [weak self] in self?.reconnects.add(1, ordering: .relaxed) }
        switch source {
        case .media(.remote(let url)):
            let report = self.report
            return CurlInputSource(url: url, ring: ring, control: control, configuration: configuration,
                                   urlRefresher: urlRefresher, onReconnect: onReconnect,
                                   onMetadata: { metadata in report(.metadata(metadata)) })
        case .media(.file(let path)):
            return FileInputSource(path: path, ring: ring, control: control)
        case .hls(let url, let playlist):
            return HLSInputSource(playlistURL: url, playlist: playlist, ring: ring, control: control,
                                  configuration: configuration, urlRefresher: urlRefresher, onReconnect: onReconnect)
        }
    }

    /// What `location` stands for: itself; an HLS stream (.m3u8); or the entries of a playlist
    /// (.m3u, .pls), of which the first that answers with audio plays. Radio sites list several
    /// servers; later ones are fallbacks.
    private func resolveSources() throws(PlayerError) -> [Source] {
        let text: String
        let base: String
        switch location {
        case .remote(var url):
            let isHLSName = Self.pathOf(url).lowercased().hasSuffix(".m3u8")
            guard let kind = PlaylistParser.kind(of: url) ?? (isHLSName ? .m3u : nil) else { return [.media(location)] }
            text = String(decoding: try fetchTextRenewing(&url), as: UTF8.self)
            if HLSPlaylistParser.isHLS(text) { return [try resolveHLS(url: url, text: text)] }
            base = url
            return try entries(text, kind: kind, base: base).map { .media($0) }
        case .file(let path):
            guard let kind = PlaylistParser.kind(of: path) ?? (path.lowercased().hasSuffix(".m3u8") ? .m3u : nil) else {
                return [.media(location)]
            }
            guard let file = fopen(path, "rb") else { throw .fileNotFound(path: path) }
            defer { fclose(file) }
            var data = [UInt8](repeating: 0, count: ResourceFetcher.limit + 1)
            data.removeLast(data.count - fread(&data, 1, data.count, file))
            guard data.count <= ResourceFetcher.limit else {
                throw .notAudio(url: path, reason: "playlist larger than \(ResourceFetcher.limit) bytes")
            }
            text = String(decoding: data, as: UTF8.self)
            if HLSPlaylistParser.isHLS(text) {
                throw .invalidPlaylist(url: path, reason: "HLS is played from http(s) URLs, not from files")
            }
            base = path
            return try entries(text, kind: kind, base: base).map { .media($0) }
        }
    }

    private static func pathOf(_ url: String) -> Substring {
        url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(url)
    }

    /// The playlist at `url`; a signed URL refused as expired (403, 410) is replaced by the
    /// refresher's answer once.
    private func fetchTextRenewing(_ url: inout String) throws(PlayerError) -> Data {
        do {
            return try fetchText(url)
        } catch {
            guard case .httpStatus(let status, _) = error, status == 403 || status == 410, let urlRefresher,
                  let fresh = BlockingURLRefresher(refresh: urlRefresher).freshURL(
                      replacing: url, timeout: configuration.urlRefreshTimeout,
                      shouldStop: { commands.withEngineLock { $0.stopRequested } })
            else { throw error }
            url = fresh
            return try fetchText(url)
        }
    }

    private func fetchText(_ url: String) throws(PlayerError) -> Data {
        try ResourceFetcher.fetch(url, configuration: configuration) { [self] in
            commands.withEngineLock { $0.stopRequested }
        }
    }

    /// The media playlist to play for an HLS URL: the playlist itself, or the variant of a master
    /// playlist chosen by bandwidth. Segments StreamPlay cannot decode are refused here.
    private func resolveHLS(url: String, text: String) throws(PlayerError) -> Source {
        var mediaURL = url
        var parsed = try HLSPlaylistParser.parse(text, url: url)
        if case .master(let variants) = parsed {
            guard let variant = HLSVariantSelection.choose(from: variants, maximumBandwidth: configuration.hlsMaximumBandwidth) else {
                throw .unsupportedFormat(url: location.description, format: "AAC (the master playlist has no MP3 variant)")
            }
            mediaURL = variant.url
            parsed = try HLSPlaylistParser.parse(String(decoding: try fetchText(mediaURL), as: UTF8.self), url: mediaURL)
        }
        guard case .media(let playlist) = parsed else {
            throw .invalidPlaylist(url: location.description, reason: "the chosen variant is a master playlist too")
        }
        if let format = HLSPlaylistParser.unsupportedSegmentFormat(of: playlist) {
            throw .unsupportedFormat(url: location.description, format: format)
        }
        logger.debug("HLS", metadata: ["playlist": "\(RedactedURL.describe(mediaURL))",
                                       "segments": "\(playlist.segments.count)", "live": "\(!playlist.isComplete)"])
        return .hls(url: mediaURL, playlist: playlist)
    }

    private func entries(_ text: String, kind: PlaylistParser.Kind, base: String) throws(PlayerError) -> [MediaLocation] {
        let locations = PlaylistParser.entries(of: text, kind: kind, base: base).compactMap { try? MediaLocation(parsing: $0) }
        guard !locations.isEmpty else {
            throw .notAudio(url: location.description, reason: "the playlist has no playable entry")
        }
        return locations
    }

    /// Starts the decoder thread; it starts the input. Does nothing once stopped.
    func start() {
        thread.withEngineLock { thread in
            guard thread == nil, !commands.withEngineLock({ $0.stopRequested }) else { return }
            thread = EngineThread(name: "sp-decoder") { [self] in run() }
        }
    }

    /// Lets a preloaded session take the sink and play.
    func activate() {
        activated.store(true, ordering: .releasing)
        wake.signal()
    }

    /// The format of a preloaded session's first audio, when it is decoded and waiting.
    var readyFormat: AudioFormat? { waitingFormat.withEngineLock { $0 } }

    // MARK: Commands (any thread)

    /// Pauses or resumes. The sink reacts at once; the decoder thread learns on its next turn.
    func setPaused(_ paused: Bool) {
        commands.withEngineLock { commands in
            guard commands.paused != paused, !commands.phase.isFinal else { return }
            commands.paused = paused
            if paused {
                sink.pause()
                report(.state(.paused))
            } else {
                if commands.phase == .playing { sink.start() }
                report(.state(commands.phase))
            }
        }
        commandVersion.add(1, ordering: .releasing)
        wake.signal()
    }

    /// Asks for audio from `seconds` on.
    /// - Returns: `false` if the track has already ended, so a seek needs a new session.
    func seek(to seconds: Double) -> Bool {
        if live.load(ordering: .acquiring) {
            // Refused here, so that the audio under way is not interrupted for nothing.
            report(.seekRefused(.seekNotSupported(reason: "\(location) is a live stream")))
            return true
        }
        let accepted = commands.withEngineLock { commands -> Bool in
            guard commands.phase != .ended else { return false }
            guard !commands.phase.isFinal else { return true }
            commands.seekTarget = max(seconds, 0)
            commands.shownSeekTarget = max(seconds, 0)
            return true
        }
        commandVersion.add(1, ordering: .releasing)
        // Only a sink that takes audio can be blocked in a write; before that, an interrupt
        // would cut short the connection to the sound server, which only a stop may do.
        if sampleRate.load(ordering: .acquiring) > 0 { sink.interrupt() }
        wake.signal()
        return accepted
    }

    /// Ends the play and waits for the engine threads to finish.
    func stop() {
        commands.withEngineLock { $0.stopRequested = true }
        commandVersion.add(1, ordering: .releasing)
        if ownsSink { sink.interrupt() }
        wake.signal()
        thread.withEngineLock { $0 }?.join()
    }

    /// Whether this session may use the sink: it opened it and has not handed it over.
    private var ownsSink: Bool {
        attached.load(ordering: .acquiring) && !handedOff.load(ordering: .acquiring)
    }

    /// Seconds heard so far: frames handed to the sink minus those still queued in it.
    /// While a seek is pending, its target.
    var position: Double? {
        if let target = commands.withEngineLock({ $0.shownSeekTarget }) { return target }
        let rate = sampleRate.load(ordering: .acquiring)
        guard rate > 0 else { return startTime > 0 ? startTime : nil }
        let base = baseFrame.load(ordering: .acquiring)
        let written = framesWritten.load(ordering: .acquiring)
        let heard = drained.load(ordering: .acquiring) ? written : max(written - sink.latencyFrames, 0)
        return Double(base + heard) / Double(rate)
    }

    /// Rebuffers and reconnects of this play so far.
    var statistics: (rebuffers: Int, rebufferSeconds: Double, reconnects: Int) {
        (rebuffers.load(ordering: .relaxed), Double(rebufferMilliseconds.load(ordering: .relaxed)) / 1000,
         reconnects.load(ordering: .relaxed))
    }

    /// How full the input buffer is, 0 to 1.
    var bufferFill: Double {
        Double(ring.available) / Double(ring.capacity)
    }

    // MARK: Decoder thread

    private func setPhase(_ phase: PlayerState) {
        commands.withEngineLock { commands in
            guard commands.phase != phase else { return }
            commands.phase = phase
            if commands.paused, !phase.isFinal { return }
            report(.state(phase))
        }
    }

    private var isPaused: Bool { commands.withEngineLock { $0.paused } }

    private func run() {
        let result = Result { () throws(PlayerError) -> PlayerState in
            let candidates = try resolveSources()
            var lastError: PlayerError?
            for candidate in candidates {
                input = makeInput(for: candidate)
                do throws(PlayerError) {
                    return try decodeLoop()
                } catch {
                    // A playlist entry that does not play before any audio was heard: try the next.
                    input.stop()
                    lastError = error
                    if framesWritten.load(ordering: .relaxed) > 0 || commands.withEngineLock({ $0.stopRequested }) { throw error }
                    ring.reset()
                }
            }
            throw lastError ?? .notAudio(url: location.description, reason: "nothing to play")
        }
        input?.stop()
        input = nil
        switch result {
        case .success(let final):
            if final == .ended { drained.store(true, ordering: .releasing) }
            if final == .ended || final == .idle, ownsSink {
                sink.flush()
            }
            setPhase(final)
        case .failure where commands.withEngineLock({ $0.stopRequested }):
            // Whatever failed while stopping (an interrupted connection) is part of the stop.
            if ownsSink { sink.flush() }
            setPhase(.idle)
        case .failure(let error):
            if ownsSink { sink.flush() }
            logger.debug("play failed", metadata: ["location": "\(location)", "error": "\(error)"])
            setPhase(.failed(error))
        }
    }

    /// The loop of the decoder thread. Returns `.ended`, or `.idle` when stopped.
    private func decodeLoop() throws(PlayerError) -> PlayerState {
        let decoder = try makeDecoder()
        var state = DecodeState()
        state.pendingSeek = startTime > 0 ? startTime : nil
        input.start(at: 0, generation: state.generation)

        let inputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MPG123Decoder.feedSize, alignment: 16)
        defer { inputBuffer.deallocate() }
        let pcm = UnsafeMutableRawBufferPointer.allocate(byteCount: decoder.preferredBufferSize, alignment: 16)
        defer { pcm.deallocate() }

        var seenVersion = -1
        var paused = false
        while true {
            sink.clearInterrupt()
            var seek: Double?
            let version = commandVersion.load(ordering: .acquiring)
            if version != seenVersion {
                seenVersion = version
                let (stop, target, isPaused) = commands.withEngineLock { commands in
                    defer { commands.seekTarget = nil }
                    return (commands.stopRequested, commands.seekTarget, commands.paused)
                }
                if stop { return .idle }
                seek = target
                paused = isPaused
            }
            if let seek { state.pendingSeek = seek; state.draining = false }
            if let target = state.pendingSeek, let format = decoder.format {
                try performSeek(to: target, format: format, decoder: decoder, state: &state)
            }
            // Files and the null sink do not wait for real time: pausing them means not decoding.
            if paused, !sink.isRealTime {
                wake.wait(timeout: 1)
                continue
            }
            if !state.infoApplied, let info = input.control.info {
                state.infoApplied = true
                live.store(info.isEndless, ordering: .releasing)
                try checkContentType(info)
                if let total = info.totalLength { decoder.setInputLength(total) }
                if let duration = info.duration {
                    state.durationReported = true
                    report(.duration(duration))
                }
            }
            if state.draining {
                if try finishPlayback(state: &state) { return .ended }
                continue
            }
            if state.gate.isRebuffering, !refilled(decoder: decoder, state: &state) {
                wake.wait(timeout: 0.05)
                continue
            }

            switch try decode(decoder, into: pcm, state: &state) {
            case .formatChanged:
                guard let format = decoder.format else { continue }
                if let previous = state.format {
                    // A new stream within the input (an HLS discontinuity).
                    try switchFormat(from: previous, to: format, state: &state)
                    continue
                }
                state.format = format
                if let length, length > 0 {
                    state.endFrame = format.frames(forSeconds: startTime + length)
                }
                reportDuration(decoder: decoder, state: &state)
                if state.pendingSeek == nil { baseFrame.store(0, ordering: .releasing) }
                setPhase(.buffering)
            case .audio(let byteCount, let decodedFrame):
                guard let format = decoder.format else { continue }
                if !state.attached {
                    guard try attach(format: format, state: &state) else { return .idle }
                }
                if !state.durationReported { reportDuration(decoder: decoder, state: &state) }
                var chunk = UnsafeRawBufferPointer(rebasing: pcm[..<byteCount])
                var firstFrame = decodedFrame
                if let target = state.discardBeforeFrame {
                    // After a segment seek: decoded from the segment's start, heard from the target.
                    let drop = (target - firstFrame) * format.bytesPerFrame
                    if drop >= chunk.count { continue }
                    if drop > 0 {
                        chunk = UnsafeRawBufferPointer(rebasing: chunk[drop...])
                        firstFrame = target
                    }
                    state.discardBeforeFrame = nil
                }
                if try deliver(pcm: chunk, firstFrame: firstFrame, format: format, state: &state) {
                    state.draining = true
                }
            case .needMore:
                if try feed(decoder, buffer: inputBuffer, state: &state) {
                    checkNearingEnd(decoder: decoder, state: &state)
                    continue
                }
                switch input.control.outcome(of: state.generation) {
                case nil:
                    // Starving: wake again before the sink's queue runs out, and pause it to
                    // refill rather than let the sound server underflow again and again.
                    var timeout = 0.5
                    if let format = decoder.format, state.gate.isStarted, !state.gate.isRebuffering, sink.isRealTime, !isPaused {
                        let spare = sink.latencyFrames - format.frames(forSeconds: OutputGate.underrunThreshold)
                        let actions = state.gate.starving(spareFrames: spare, at: .now)
                        if !actions.isEmpty {
                            carryOut(actions)
                            logger.debug("rebuffering", metadata: ["location": "\(location)"])
                            continue
                        }
                        timeout = min(timeout, max(0.005, format.seconds(forFrames: spare)))
                    }
                    if !ring.announceConsumerWaiting(generation: state.generation) {
                        wake.wait(timeout: timeout)
                    }
                case .finished?:
                    if ring.available(generation: state.generation) > 0 { continue }
                    guard decoder.format != nil else {
                        throw state.bytesFed == 0
                            ? .emptyStream(url: location.description)
                            : .notAudio(url: location.description, reason: "no MPEG audio frame found")
                    }
                    state.draining = true
                case .failed(let error)?:
                    if ring.available(generation: state.generation) > 0 { continue }
                    // Play out what was decoded before reporting the failure, as a player would.
                    if decoder.format != nil, state.gate.isStarted || state.gate.framesBuffered > 0 {
                        state.failure = error
                        state.draining = true
                    } else {
                        throw error
                    }
                }
            case .finished:
                state.draining = true
            }
        }
    }

    /// The decoder for this track. MPEG audio is the only format so far; a second one (AAC)
    /// is chosen here, by content type or by sniffing, and nothing else changes.
    private func makeDecoder() throws(PlayerError) -> any AudioDecoder {
        try MPG123Decoder()
    }

    /// The decoder thread's own bookkeeping.
    private struct DecodeState {
        var generation = 1
        /// Absolute byte offset of the next ring byte of this generation.
        var inputPosition = 0
        /// Input is read and thrown away up to this offset (seek without a Range request).
        var skipTo: Int?
        /// Bytes handed to the decoder.
        var bytesFed = 0
        /// The input's first bytes, held while ``ContentSniffer`` decides what they are; `nil`
        /// once decided.
        var sniffed: [UInt8]? = []
        var infoApplied = false
        var pendingSeek: Double?
        /// The next audio chunk starts the timeline anew (after a seek).
        var rebase = true
        /// When output starts, pauses to refill, and starts over.
        var gate = OutputGate()
        var endFrame: Int?
        var durationReported = false
        var draining = false
        var failure: PlayerError?
        var recoveries = 0
        /// The sink was opened (see ``attach(format:state:)``).
        var attached = false
        var nearingEndReported = false
        /// The format the sink was opened with.
        var format: AudioFormat?
        /// Decoded audio before this frame is dropped (a seek that started at a segment's start).
        var discardBeforeFrame: Int?
        /// The discontinuity the decoder last started afresh at.
        var passedDiscontinuity: Int?
        /// Where the current transfer's (this generation's) opening burst ended, and when: its
        /// average rate since tells a rebuffer how much to refill. The burst is left out, since
        /// servers send one before they pace (and it may come in several reads).
        var transferStart: (time: ContinuousClock.Instant, offset: Int)?
    }

    /// Damaged stretches survived in one track before the play fails.
    private static let recoveryLimit = 16

    private func decode(_ decoder: any AudioDecoder, into pcm: UnsafeMutableRawBufferPointer,
                        state: inout DecodeState) throws(PlayerError) -> DecodeStep {
        let step: DecodeStep
        do {
            step = try decoder.decode(into: pcm)
        } catch {
            if decoder.format == nil {
                throw .notAudio(url: location.description, reason: "\(error)")
            }
            // Garbage mid-stream: decoding goes on after it, as a listener expects.
            guard state.recoveries < Self.recoveryLimit else { throw error }
            logger.debug("decoder resync after damage", metadata: ["error": "\(error)"])
            try recover(decoder, state: &state)
            return .needMore
        }
        // The decoder declares an end while input goes on: what follows was taken for another
        // stream (a false header in garbage). Decode on from the next good frame.
        if step == .finished, input.control.outcome(of: state.generation) == nil || ring.available(generation: state.generation) > 0,
           state.recoveries < Self.recoveryLimit {
            try recover(decoder, state: &state)
            return .needMore
        }
        return step
    }

    /// Restarts the decoder after a damaged stretch. Where the input can restart at a byte, it
    /// does so just past where the decoder stopped, so that no good frame the decoder had
    /// buffered is lost; otherwise decoding goes on with the bytes still to come.
    private func recover(_ decoder: any AudioDecoder, state: inout DecodeState) throws(PlayerError) {
        state.recoveries += 1
        let frame = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
        if input.control.info?.supportsRanges == true {
            let resumeAt = decoder.inputPosition + 1
            restartInput(at: resumeAt, state: &state)
            try decoder.restart(atByte: resumeAt, frame: frame)
        } else {
            try decoder.restart(atByte: state.inputPosition, frame: frame)
        }
    }

    /// Moves ring bytes into the decoder. Returns `false` when the ring had none.
    private func feed(_ decoder: any AudioDecoder, buffer: UnsafeMutableRawBufferPointer,
                      state: inout DecodeState) throws(PlayerError) -> Bool {
        if let skipTo = state.skipTo {
            let skipped = ring.skip(skipTo - state.inputPosition, generation: state.generation)
            state.inputPosition += skipped
            if state.inputPosition >= skipTo { state.skipTo = nil }
            return skipped > 0
        }
        var readable = buffer
        if let boundary = input.control.discontinuity(atOrAfter: state.inputPosition, generation: state.generation) {
            if boundary == state.inputPosition, state.passedDiscontinuity != boundary {
                // Everything before the new stream is decoded (the decoder asked for more):
                // start afresh, so that its format and its first frames are taken as new.
                state.passedDiscontinuity = boundary
                let frame = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
                try decoder.restart(atByte: boundary, frame: frame)
            } else if boundary > state.inputPosition {
                readable = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, boundary - state.inputPosition)])
            }
        }
        let count = ring.read(into: readable, generation: state.generation)
        if state.sniffed != nil {
            return try sniff(UnsafeRawBufferPointer(rebasing: buffer[..<count]), decoder: decoder, state: &state)
        }
        guard count > 0 else { return false }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        try decoder.feed(bytes)
        state.inputPosition += count
        state.bytesFed += count
        anchorTransfer(state: &state, delivered: true)
        if decoder.format == nil, state.bytesFed > Self.sniffLimit {
            throw .notAudio(url: location.description, reason: "no MPEG audio frame in the first \(state.bytesFed) bytes")
        }
        return true
    }

    /// Holds the input's first bytes until ``ContentSniffer`` tells what they are, then feeds
    /// them to the decoder, skips an ID3v2 tag in front, or refuses what it cannot play.
    /// - Returns: `false` when no bytes came and nothing was decided.
    private func sniff(_ bytes: UnsafeRawBufferPointer, decoder: any AudioDecoder,
                       state: inout DecodeState) throws(PlayerError) -> Bool {
        state.sniffed?.append(contentsOf: bytes)
        state.inputPosition += bytes.count
        if !bytes.isEmpty { anchorTransfer(state: &state, delivered: true) }
        let held = state.sniffed ?? []
        let ended = bytes.isEmpty && input.control.outcome(of: state.generation) == .finished
            && ring.available(generation: state.generation) == 0
        // Nothing came, or the input ended empty: the decode loop handles both.
        if bytes.isEmpty && (!ended || held.isEmpty) { return false }
        let heldStart = state.inputPosition - held.count
        let verdict = held.withUnsafeBytes { ContentSniffer.sniff($0, isComplete: ended || held.count >= Self.sniffLimit) }
        switch verdict {
        case .needMore where !ended:
            return true
        case .decided(.id3v2Tag(let size)):
            // The tag is skipped here, not fed: mpg123 would hold all of it in memory, and its
            // size (up to 256 MiB) comes from the network. What follows it is sniffed in turn.
            let tagEnd = heldStart + size
            try decoder.restart(atByte: tagEnd, frame: 0)
            if size <= held.count {
                state.sniffed = Array(held[size...])
                return true
            }
            state.sniffed = []
            if input.control.info?.supportsRanges == true,
               tagEnd - state.inputPosition > ring.available(generation: state.generation) {
                restartInput(at: tagEnd, state: &state)
            } else {
                state.skipTo = tagEnd
            }
            return true
        case .decided(.mpegAudio):
            state.sniffed = nil
            try held.withPlayerBytes { bytes throws(PlayerError) in try decoder.feed(bytes) }
            state.bytesFed += held.count
            return true
        case .decided(.foreign(let signature)):
            throw .unsupportedFormat(url: location.description, format: signature.description)
        case .decided(.text(let marker)):
            throw .notAudio(url: location.description, reason: "the content is text (\(marker)…), not audio")
        case .needMore, .unrecognised:
            throw .notAudio(url: location.description,
                            reason: "no MPEG audio frames and no known format in the first \(held.count) bytes")
        }
    }

    /// Opens the sink for the first audio. A preloaded session first waits, its first audio
    /// decoded, until it is activated. Returns `false` when stopped while waiting.
    private func attach(format: AudioFormat, state: inout DecodeState) throws(PlayerError) -> Bool {
        if !activated.load(ordering: .acquiring) {
            waitingFormat.withEngineLock { $0 = format }
            while !activated.load(ordering: .acquiring) {
                if commands.withEngineLock({ $0.stopRequested }) { return false }
                wake.wait(timeout: 0.1)
            }
        }
        try sink.open(format: format)
        attached.store(true, ordering: .releasing)
        state.attached = true
        sampleRate.store(format.sampleRate, ordering: .releasing)
        report(.format(format))
        // Never more than half what the sink queues while stopped, or it could never start.
        state.gate.opened(prebufferFrames: prebufferFrames(format))
        return true
    }

    /// Tells the player, once, when the track's end is near enough to open the next one: its
    /// input is complete and less than ``preloadLead`` of audio is left, or its length is reached soon.
    private func checkNearingEnd(decoder: any AudioDecoder, state: inout DecodeState) {
        guard !state.nearingEndReported, state.attached, let format = state.format else { return }
        var left = Double.infinity
        if let endFrame = state.endFrame {
            let current = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
            left = format.seconds(forFrames: max(endFrame - current, 0))
        }
        if input.control.outcome(of: state.generation) == .finished, let bytesPerSecond = decoder.bytesPerSecond, bytesPerSecond > 0 {
            left = min(left, Double(ring.available(generation: state.generation)) / Double(bytesPerSecond))
        }
        guard left < Self.preloadLead else { return }
        state.nearingEndReported = true
        report(.nearingEnd)
    }

    /// Audio left in the current track when the next one is opened: time enough to connect and
    /// decode its first audio on a slow link, little enough not to hold two streams for long.
    private static let preloadLead = 8.0

    /// A new stream follows within the input (an HLS discontinuity). In another format, the sink
    /// plays out the old audio, reopens in the new format, and the timeline goes on at the new
    /// rate; in the same format, audio simply goes on.
    private func switchFormat(from previous: AudioFormat, to format: AudioFormat,
                              state: inout DecodeState) throws(PlayerError) {
        guard previous != format else { return }
        if state.gate.isStarted {
            // Interrupted by a seek or a stop, which start the output over anyway.
            _ = try sink.drain()
        }
        let timeline = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
        let seconds = previous.seconds(forFrames: timeline)
        try sink.open(format: format)
        state.format = format
        sampleRate.store(format.sampleRate, ordering: .releasing)
        baseFrame.store(format.frames(forSeconds: seconds), ordering: .releasing)
        framesWritten.store(0, ordering: .releasing)
        state.rebase = false
        report(.format(format))
        // The new stream is corked: it starts like a track, once its prebuffer is written.
        state.gate.opened(prebufferFrames: prebufferFrames(format))
        if let length, length > 0 {
            state.endFrame = format.frames(forSeconds: startTime + length)
        }
        logger.debug("format change", metadata: ["from": "\(previous)", "to": "\(format)"])
    }

    private func checkContentType(_ info: InputInfo) throws(PlayerError) {
        guard let type = info.contentType?.lowercased() else { return }
        let textTypes = ["text/html", "application/xhtml+xml", "application/json", "text/xml", "application/xml"]
        if textTypes.contains(where: { type.hasPrefix($0) }) {
            throw .notAudio(url: location.description, reason: "the server sent \(type)")
        }
    }

    private func reportDuration(decoder: any AudioDecoder, state: inout DecodeState) {
        guard let total = decoder.totalFrames, let format = decoder.format else { return }
        state.durationReported = true
        report(.duration(format.seconds(forFrames: total)))
    }

    /// Hands decoded audio to the sink and starts output once the prebuffer is full.
    /// Returns `true` when the requested length has been reached.
    private func deliver(pcm: UnsafeRawBufferPointer, firstFrame: Int, format: AudioFormat,
                         state: inout DecodeState) throws(PlayerError) -> Bool {
        if state.rebase {
            state.rebase = false
            baseFrame.store(firstFrame, ordering: .releasing)
            framesWritten.store(0, ordering: .releasing)
        }
        var bytes = pcm
        var reachedEnd = false
        if let endFrame = state.endFrame {
            // Counted from the timeline, not the decoder: after a resync the decoder counts anew.
            let current = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
            let remaining = max(endFrame - current, 0) * format.bytesPerFrame
            if remaining <= bytes.count {
                bytes = UnsafeRawBufferPointer(rebasing: bytes[..<remaining])
                reachedEnd = true
            }
        }
        if let framesBeforeStart = state.gate.framesBeforeStart {
            // Write up to the prebuffer target, start output, then write the rest: a stopped
            // sink that fills up would otherwise block before it was ever started.
            let toTarget = min(framesBeforeStart * format.bytesPerFrame, bytes.count)
            guard try write(UnsafeRawBufferPointer(rebasing: bytes[..<toTarget]), format: format) else { return false }
            carryOut(state.gate.queued(frames: toTarget / format.bytesPerFrame))
            bytes = UnsafeRawBufferPointer(rebasing: bytes[toTarget...])
        }
        guard try write(bytes, format: format) else { return false }
        return reachedEnd
    }

    /// Queues `bytes` in the sink and counts them.
    /// - Returns: `false` if a seek or stop interrupted the write (the rest is not wanted).
    private func write(_ bytes: UnsafeRawBufferPointer, format: AudioFormat) throws(PlayerError) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = try sink.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += count
            framesWritten.add(count / format.bytesPerFrame, ordering: .releasing)
            guard offset < bytes.count else { break }
            // Interrupted. A command taken before the interrupt arrived can leave it behind:
            // only a seek or stop still pending means the rest of the audio is not wanted.
            if hasPendingSeekOrStop { return false }
            sink.clearInterrupt()
            if hasPendingSeekOrStop { return false }
        }
        return true
    }

    private var hasPendingSeekOrStop: Bool {
        commands.withEngineLock { $0.stopRequested || $0.seekTarget != nil }
    }

    /// Whether a rebuffer is over: enough input is buffered to play on without flapping (see
    /// ``RefillPolicy``), or the input has ended. Ends it then.
    private func refilled(decoder: any AudioDecoder, state: inout DecodeState) -> Bool {
        guard state.gate.isRebuffering else { return true }
        let bytesPerSecond = decoder.bytesPerSecond ?? 16_000
        let available = ring.available(generation: state.generation)
        let received = state.inputPosition + available
        let remaining = input.control.info?.totalLength.map { $0 - received }
        anchorTransfer(state: &state, delivered: false)
        let start = state.transferStart ?? (ContinuousClock.now, received)
        let elapsed = ContinuousClock.now - start.time
        let refill = RefillPolicy(standardRefill: configuration.rebufferRefill).refillSeconds(
            bytesPerSecond: Double(bytesPerSecond),
            transferSeconds: elapsed.inSeconds,
            transferredBytes: received - start.offset, remainingBytes: remaining)
        let target = min(Int(refill * Double(bytesPerSecond)), ring.capacity * 3 / 4)
        guard available >= target
                || input.control.outcome(of: state.generation) != nil
                || commands.withEngineLock({ $0.stopRequested || $0.seekTarget != nil }) else { return false }
        carryOut(state.gate.refilled(at: .now))
        return true
    }

    /// Moves the point the transfer's rate is measured from to the end of its opening burst:
    /// bytes that come within a tenth of a second of the last ones still belong to it.
    /// `delivered`: called right after this generation's bytes were read (the first such call
    /// starts the measure).
    private func anchorTransfer(state: inout DecodeState, delivered: Bool) {
        let received = state.inputPosition + ring.available(generation: state.generation)
        if let start = state.transferStart {
            guard received > start.offset, ContinuousClock.now - start.time < Self.openingBurst else { return }
        } else if !delivered {
            return
        }
        state.transferStart = (.now, received)
    }

    /// How closely reads must follow each other to count as one burst.
    private static let openingBurst = Duration.milliseconds(100)

    /// Carries out what the output gate decided.
    private func carryOut(_ actions: [OutputGate.Action]) {
        for action in actions {
            switch action {
            case .startSink:
                commands.withEngineLock { commands in
                    if !commands.paused { sink.start() }
                }
            case .pauseSink:
                sink.pause()
            case .progress(let fraction):
                report(.bufferingProgress(fraction))
            case .state(let phase):
                setPhase(phase)
            case .rebuffered(let seconds):
                countRebuffer(seconds)
                report(.rebuffered(seconds))
            case .rebufferAbandoned(let seconds):
                countRebuffer(seconds)
            }
        }
    }

    private func countRebuffer(_ seconds: Double) {
        rebuffers.add(1, ordering: .relaxed)
        rebufferMilliseconds.add(Int(seconds * 1000), ordering: .relaxed)
    }

    /// Frames queued before output starts: never more than half what the sink queues while
    /// stopped, or it could never start.
    private func prebufferFrames(_ format: AudioFormat) -> Int {
        min(format.frames(forSeconds: configuration.prebuffer), sink.queueCapacityFrames / 2)
    }

    /// Lets the sink play out what it holds. Returns `true` when done, `false` if interrupted.
    private func finishPlayback(state: inout DecodeState) throws(PlayerError) -> Bool {
        guard state.attached else {
            // No audio was ever decoded: nothing to play out, and the sink is not this track's.
            if let failure = state.failure { throw failure }
            return true
        }
        if !state.gate.isStarted { carryOut(state.gate.start()) }
        if isPaused && sink.isRealTime {
            // Draining a corked stream waits for the resume; the wait is interruptible.
            wake.wait(timeout: 0.25)
            return false
        }
        if state.failure == nil, let format = state.format, state.attached {
            if !state.nearingEndReported {
                state.nearingEndReported = true
                report(.nearingEnd)
            }
            if let handOff, handOff(format) {
                // The next track writes on into the sink: no drain, no gap.
                handedOff.store(true, ordering: .releasing)
                return true
            }
        }
        guard try sink.drain() else { return false }
        if let failure = state.failure { throw failure }
        return true
    }

    private func performSeek(to target: Double, format: AudioFormat, decoder: any AudioDecoder,
                             state: inout DecodeState) throws(PlayerError) {
        state.pendingSeek = nil
        defer {
            commands.withEngineLock { if $0.seekTarget == nil { $0.shownSeekTarget = nil } }
        }
        if input.control.info?.isEndless == true {
            report(.seekRefused(.seekNotSupported(reason: "\(location) is a live stream")))
            return
        }
        if let playlist = input.segmentedPlaylist {
            try seekSegment(in: playlist, to: target, format: format, decoder: decoder, state: &state)
            return
        }
        var frame = format.frames(forSeconds: target)
        if let total = decoder.totalFrames { frame = min(frame, max(total - 1, 0)) }
        guard let (landed, offset) = try decoder.seek(toFrame: frame) else {
            // The decoder started over: from the beginning, then this seek again.
            if state.attached { sink.flush() }
            restartInput(at: 0, state: &state)
            state.bytesFed = 0
            state.sniffed = []
            state.pendingSeek = target
            carryOut(state.gate.restart(at: .now))
            state.rebase = true
            return
        }
        if state.attached { sink.flush() }
        // A seek ends a rebuffer: output starts again once the new position is prebuffered.
        carryOut(state.gate.restart(at: .now))
        baseFrame.store(landed, ordering: .releasing)
        framesWritten.store(0, ordering: .releasing)
        state.rebase = true
        state.draining = false
        state.failure = nil
        report(.seeked(format.seconds(forFrames: landed)))

        let plan = SeekPlanner.bytePlan(offset: offset, inputPosition: state.inputPosition,
                                        buffered: ring.available(generation: state.generation),
                                        supportsRanges: input.control.info?.supportsRanges ?? false,
                                        inputFinished: input.control.outcome(of: state.generation) != nil)
        switch plan {
        case .skip(let to):
            state.skipTo = to
        case .restart(let at):
            restartInput(at: at, state: &state)
        case .restartFromStart(let skipTo):
            restartInput(at: 0, state: &state)
            state.skipTo = skipTo
        }
        logger.debug("seek", metadata: ["target": "\(target)", "landed": "\(landed)", "offset": "\(offset)"])
    }

    /// Seeks an HLS stream: from the start of a segment, decoding and dropping audio up to the
    /// target (see ``SeekPlanner/segmentPlan(in:to:format:samplesPerFrame:)``).
    private func seekSegment(in playlist: HLSMediaPlaylist, to target: Double, format: AudioFormat,
                             decoder: any AudioDecoder, state: inout DecodeState) throws(PlayerError) {
        let plan = SeekPlanner.segmentPlan(in: playlist, to: target, format: format, samplesPerFrame: decoder.samplesPerFrame)
        let (index, startFrame, targetFrame) = (plan.segmentIndex, plan.startFrame, plan.targetFrame)
        if state.attached { sink.flush() }
        carryOut(state.gate.restart(at: .now))
        state.generation += 1
        state.inputPosition = 0
        state.transferStart = nil
        state.skipTo = nil
        state.passedDiscontinuity = nil
        input.start(atSegment: index, generation: state.generation)
        try decoder.restart(atByte: 0, frame: startFrame)
        state.discardBeforeFrame = targetFrame
        baseFrame.store(targetFrame, ordering: .releasing)
        framesWritten.store(0, ordering: .releasing)
        state.rebase = true
        state.draining = false
        state.failure = nil
        report(.seeked(format.seconds(forFrames: targetFrame)))
        logger.debug("segment seek", metadata: ["target": "\(target)", "segment": "\(index)"])
    }

    private func restartInput(at offset: Int, state: inout DecodeState) {
        state.generation += 1
        state.inputPosition = offset
        state.transferStart = nil
        state.skipTo = nil
        state.passedDiscontinuity = nil
        input.start(at: offset, generation: state.generation)
    }
}
