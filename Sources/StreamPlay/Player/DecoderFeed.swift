import Logging

/// The decoder's input side for one play: which request's bytes are current (the
/// generation), where the next ring byte sits in the resource, the first bytes held for
/// ``ContentSniffer``, what to skip, and how damage or an early end is decoded past.
///
/// Confined to the decoder thread: the decode loop calls it, and so does a decoder that reads
/// its input itself (FFmpeg, through ``RingInputPump``), on the same thread. What
/// the play does with the audio, and when it waits, is ``DecodeLoop``'s.
final class DecoderFeed {
    let ring: ByteRing
    let input: any InputSource
    let decoder: DecoderChoice
    /// The feed buffer. It holds the last read (see ``inputBufferHolds``).
    let buffer: UnsafeMutableRawBufferPointer
    /// The location, for errors.
    let url: String
    let configuration: PlayerConfiguration
    /// The play's timeline: its next frame is where a decoder restarted mid-track goes on
    /// counting.
    let timeline: PlaybackTimeline
    /// Told once, when the input's first bytes come.
    let firstBytesArrived: () -> Void
    private var firstBytesTold = false
    /// What an FFmpeg decoder reads its input through, once the sniffer chooses one.
    weak var pump: (any DecoderInputPump)?
    /// A failure met while feeding a decoder that reads its input itself, thrown by the decode
    /// loop once the decoder returns.
    var pumpFailure: PlayerError?
    var logger: Logger { configuration.logger }

    /// Bytes held for ``ContentSniffer``, or fed without the decoder finding a frame, beyond any
    /// ID3v2 tag, before the input is declared not to be audio.
    static let sniffLimit = 256 * 1024

    var generation = 1
    /// Absolute byte offset of the next ring byte of this generation.
    var inputPosition = 0
    /// Input is read and thrown away up to this offset (seek without a Range request).
    var skipTo: Int?
    /// The input offsets of the bytes the feed buffer holds from its start: those of the
    /// last read. Where the bytes a decoder was fed but did not decode are found again when
    /// it ends before the input does.
    var inputBufferHolds: Range<Int>?
    /// Bytes handed to the decoder.
    var bytesFed = 0
    /// The input's first bytes, held while ``ContentSniffer`` decides what they are; `nil`
    /// once decided.
    var sniffed: [UInt8]? = []
    /// The ID3v2 tag's names, held until the first audio to be reported with the others.
    var heldTags: StreamMetadata?
    /// Damaged stretches decoded past (``DecodeFailurePlanner/recoveryLimit`` bounds them).
    var recoveries = 0
    /// The discontinuity the decoder last started afresh at.
    var passedDiscontinuity: Int?
    /// How fast the current transfer (this generation's) brings its bytes, which tells a
    /// rebuffer how much to refill. The time is the input's: ``PlayerConfiguration/clock``.
    var transferRate = TransferRateMeter()

    init(ring: ByteRing, input: any InputSource, decoder: DecoderChoice, buffer: UnsafeMutableRawBufferPointer,
         url: String, configuration: PlayerConfiguration, timeline: PlaybackTimeline,
         firstBytesArrived: @escaping () -> Void) {
        self.ring = ring
        self.input = input
        self.decoder = decoder
        self.buffer = buffer
        self.url = url
        self.configuration = configuration
        self.timeline = timeline
        self.firstBytesArrived = firstBytesArrived
    }

    /// Bytes of this generation waiting in the ring.
    var buffered: Int { ring.available(generation: generation) }
    /// How this generation's transfer ended; `nil` while it runs.
    var outcome: InputOutcome? { input.control.outcome(of: generation) }

    // MARK: Decoding

    /// Decodes the next chunk. A failure, or an end declared while input goes on or with audio
    /// in what the decoder was fed, is either the play's error or damage decoded past, as
    /// ``DecodeFailurePlanner`` decides.
    func decode(into pcm: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep {
        let step: DecodeStep
        do {
            step = try decoder.decode(into: pcm)
        } catch {
            // Garbage mid-stream: decoding goes on after it, as a listener expects.
            let facts = DecodeFailurePlanner.Facts(
                formatKnown: decoder.format != nil, searchesForFrames: decoder.searchesForFrames,
                recoveries: recoveries, url: url)
            if case .fail(let failure) = DecodeFailurePlanner.decoderFailed(error, facts: facts) { throw failure }
            logger.debug("decoder resync after damage", metadata: ["error": "\(error)"])
            try recover()
            return .needMore
        }
        if let pumpFailure { throw pumpFailure }
        guard step == .finished else { return step }
        // The decoder declares an end while input goes on, or with audio in what it was fed:
        // what follows was taken for another stream (a false header in garbage), or is the next
        // part of MP3s joined with `cat`. Decode on from the next good frame.
        let rest = unconsumedRest()
        switch DecodeFailurePlanner.decoderFinished(
            searchesForFrames: decoder.searchesForFrames, recoveries: recoveries, url: url,
            inputGoesOn: outcome == nil || buffered > 0,
            restAudioStart: rest.flatMap { ContentSniffer.audioStart(inRest: $0.bytes) }
        ) {
        case .recover?:
            logger.debug("decoder ended while input goes on; decoding on from the next frame",
                         metadata: ["location": "\(url)", "recoveries": "\(recoveries + 1)"])
            try recover()
            return .needMore
        case .decodeRest(let start)?:
            guard let rest else { return step }
            logger.debug("decoder ended before the input's last bytes, which hold audio; decoding them",
                         metadata: ["location": "\(url)", "bytes": "\(rest.bytes.count - start)"])
            recoveries += 1
            try restartDecoder(onHeld: rest, from: start)
            // No more input will come to make the decode loop decode again: decode now. Each
            // such restart counts against the recovery limit, which bounds the recursion.
            return try decode(into: pcm)
        case .fail(let failure)?: throw failure
        case nil: return step
        }
    }

    /// The bytes the decoder was fed but did not decode, as far as the feed buffer still holds
    /// them (the last read), and the input offset of the first; `nil` when it holds none of
    /// them. Only for a decoder fed by ``feed()`` (one that searches for frames): libmpg123
    /// ends or fails within the last read, so only a partial frame before it can be missing.
    func unconsumedRest() -> (bytes: UnsafeRawBufferPointer, offset: Int)? {
        guard decoder.searchesForFrames, let holds = inputBufferHolds else { return nil }
        let unconsumed = holds.clamped(to: decoder.inputPosition..<max(decoder.inputPosition, inputPosition))
        guard !unconsumed.isEmpty else { return nil }
        let start = unconsumed.lowerBound - holds.lowerBound, end = unconsumed.upperBound - holds.lowerBound
        return (UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<end]), unconsumed.lowerBound)
    }

    /// Restarts the decoder at `index` into `rest` (``unconsumedRest()``) and feeds it the
    /// bytes from there, continuing the timeline where it is.
    func restartDecoder(onHeld rest: (bytes: UnsafeRawBufferPointer, offset: Int), from index: Int) throws(PlayerError) {
        try decoder.restart(atByte: rest.offset + index, frame: timeline.nextFrame)
        if rest.bytes.count > index { try decoder.feed(UnsafeRawBufferPointer(rebasing: rest.bytes[index...])) }
    }

    /// Restarts the decoder after a damaged stretch, just past where it stopped, so that the
    /// good frames it had been fed are not lost. Where the input can restart at a byte, it does
    /// so there; otherwise the decoder is fed again what the feed buffer still holds of its
    /// rest (the last read: a partial frame before it is lost), and decoding goes on with the
    /// bytes still to come.
    func recover() throws(PlayerError) {
        recoveries += 1
        let frame = timeline.nextFrame
        if input.control.info?.supportsRanges == true {
            let resumeAt = decoder.inputPosition + 1
            restartInput(at: resumeAt)
            try decoder.restart(atByte: resumeAt, frame: frame)
        } else if let rest = unconsumedRest() {
            // Past the byte the decoder stopped at; from the buffer's first byte when the
            // decoder stopped before the last read (what came before it is gone).
            try restartDecoder(onHeld: rest, from: rest.offset == decoder.inputPosition ? 1 : 0)
        } else {
            try decoder.restart(atByte: inputPosition, frame: frame)
        }
    }

    // MARK: Feeding

    /// Moves ring bytes into the decoder. Returns `false` when the ring had none.
    func feed() throws(PlayerError) -> Bool {
        let discontinuity = skipTo == nil ? input.control.discontinuity(atOrAfter: inputPosition, generation: generation) : nil
        let limit: Int
        switch FeedPlanner.next(inputPosition: inputPosition, skipTo: skipTo, discontinuity: discontinuity,
                                passedDiscontinuity: passedDiscontinuity, bufferSize: buffer.count) {
        case .skip(let count):
            let skipped = ring.skip(count, generation: generation)
            inputPosition += skipped
            if let skipTo, inputPosition >= skipTo { self.skipTo = nil }
            return skipped > 0
        case .read(let most, let restartAt):
            if let restartAt {
                passedDiscontinuity = restartAt
                try decoder.restart(atByte: restartAt, frame: timeline.nextFrame)
            }
            limit = most
        }
        let readable = UnsafeMutableRawBufferPointer(rebasing: buffer[..<limit])
        let count = ring.read(into: readable, generation: generation)
        if count > 0 { inputBufferHolds = inputPosition..<(inputPosition + count) }
        if sniffed != nil {
            return try sniff(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        guard count > 0 else { return false }
        try decoder.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        inputPosition += count
        bytesFed += count
        noteTransfer(delivered: true)
        if decoder.format == nil, decoder.searchesForFrames, bytesFed > Self.sniffLimit {
            throw .notAudio(url: url, reason: "no MPEG audio frame in the first \(bytesFed) bytes")
        }
        return true
    }

    /// Holds the input's first bytes until ``ContentSniffer`` tells what they are, then feeds
    /// them to the decoder, skips an ID3v2 tag in front, or refuses what it cannot play.
    /// - Returns: `false` when no bytes came and nothing was decided.
    func sniff(_ bytes: UnsafeRawBufferPointer) throws(PlayerError) -> Bool {
        if !firstBytesTold, !bytes.isEmpty {
            firstBytesTold = true
            firstBytesArrived()
        }
        sniffed?.append(contentsOf: bytes)
        inputPosition += bytes.count
        if !bytes.isEmpty { noteTransfer(delivered: true) }
        let held = sniffed ?? []
        let ended = bytes.isEmpty && outcome == .finished && buffered == 0
        // Nothing came, or the input ended empty: the decode loop handles both.
        if bytes.isEmpty && (!ended || held.isEmpty) { return false }
        let heldStart = inputPosition - held.count
        let verdict = held.withUnsafeBytes { ContentSniffer.sniff($0, isComplete: ended || held.count >= Self.sniffLimit) }
        switch FirstBytesPlanner.step(for: verdict, held: held.count, inputEnded: ended, url: url) {
        case .waitForMore:
            return true
        case .passTag(let size):
            // The tag's names are reported with the other tags' once the audio is known
            // (``TrackNamesReporter``); its ReplayGain goes to the decoder, which applies it.
            if var names = ID3TagReader.read(held.prefix(size)) {
                if let gain = names.replayGainValues { decoder.useReplayGain(fromTag: gain) }
                names.replayGainValues = nil
                heldTags = names
            }
            try decoder.restart(atByte: heldStart + size, frame: 0)
            switch LeadingTagPlanner.wayPast(
                tagSize: size, tagStart: heldStart, held: held.count, inputPosition: inputPosition,
                buffered: buffered, supportsRanges: input.control.info?.supportsRanges == true
            ) {
            case .sniffHeld(let index): sniffed = Array(held[index...])
            case .restartInput(let tagEnd):
                sniffed = []
                restartInput(at: tagEnd)
            case .skip(let tagEnd):
                sniffed = []
                skipTo = tagEnd
            }
            return true
        case .decodeAsMPEG:
            sniffed = nil
            try held.withPlayerBytes { bytes throws(PlayerError) in try decoder.feed(bytes) }
            bytesFed += held.count
            return true
        case .decodeWithFFmpeg(let signature):
            // FFmpeg reads on from the bytes held.
            guard let pump else { throw .unsupportedFormat(url: url, format: signature.description) }
            let ffmpeg = try FFmpegDecoder(container: signature, pump: pump, replayGain: configuration.replayGain)
            try ffmpeg.restart(atByte: heldStart, frame: 0)
            decoder.choose(ffmpeg)
            logger.debug("decoder", metadata: ["container": "\(signature)", "location": "\(url)"])
            sniffed = nil
            try held.withPlayerBytes { bytes throws(PlayerError) in try decoder.feed(bytes) }
            bytesFed += held.count
            return true
        case .fail(let failure):
            throw failure
        }
    }

    /// The decoder starts over from the input's first byte (a seek it can only reach from
    /// there): the first bytes are sniffed again.
    func startOver() {
        restartInput(at: 0)
        bytesFed = 0
        sniffed = []
    }

    // MARK: The input's requests

    /// Shows the transfer's rate meter the bytes received so far (read, and waiting in the
    /// ring). `delivered`: called right after this generation's bytes were read; the first
    /// such call begins the measure, and calls before it are ignored.
    func noteTransfer(delivered: Bool) {
        guard delivered || transferRate.hasBegun else { return }
        transferRate.observe(received: inputPosition + buffered, at: configuration.clock.now.inSeconds)
    }

    /// A new request from `offset`.
    func restartInput(at offset: Int) {
        logger.trace("input restart", metadata: [
            "offset": "\(offset)", "generation": "\(generation + 1)", "ringHolds": "\(ring.available)",
        ])
        beginGeneration(at: offset)
        input.start(at: offset, generation: generation)
    }

    /// Bytes of a new request, from `offset`, are told apart from the old ones by a new
    /// generation; what was read or skipped of the old one is forgotten.
    func beginGeneration(at offset: Int) {
        generation += 1
        inputPosition = offset
        transferRate = TransferRateMeter()
        skipTo = nil
        passedDiscontinuity = nil
        inputBufferHolds = nil
    }

    /// Where a byte seek's `offset` is reached from (``SeekPlanner/bytePlan(offset:inputPosition:buffered:supportsRanges:inputFinished:)``):
    /// skipping, or a new request.
    func reposition(to offset: Int, supportsRanges: Bool) {
        switch SeekPlanner.bytePlan(offset: offset, inputPosition: inputPosition, buffered: buffered,
                                    supportsRanges: supportsRanges, inputFinished: outcome != nil) {
        case .skip(let to):
            skipTo = to == inputPosition ? nil : to
        case .restart(let at):
            restartInput(at: at)
        case .restartFromStart(let skipTo):
            restartInput(at: 0)
            self.skipTo = skipTo
        }
    }
}
