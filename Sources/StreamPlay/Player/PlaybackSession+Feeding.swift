// Moving input bytes into the decoder: sniffing the first bytes, skipping, resyncing after
// damage, waiting for input (and starting a rebuffer), restarting the input, and measuring the
// transfer for rebuffers.

extension PlaybackSession {
    /// Decodes the next chunk. A failure, or an end declared while input goes on or with audio
    /// in what the decoder was fed, is either the play's error or damage decoded past, as
    /// ``DecodeFailurePlanner`` decides.
    /// - Parameter inputBuffer: the feed buffer, which holds the last bytes read (see
    ///   ``DecodeState/inputBufferHolds``).
    func decode(_ decoder: any AudioDecoder, into pcm: UnsafeMutableRawBufferPointer,
                inputBuffer: UnsafeMutableRawBufferPointer, state: inout DecodeState) throws(PlayerError) -> DecodeStep {
        let step: DecodeStep
        do {
            step = try decoder.decode(into: pcm)
        } catch {
            // Garbage mid-stream: decoding goes on after it, as a listener expects.
            let facts = DecodeFailurePlanner.Facts(
                formatKnown: decoder.format != nil, searchesForFrames: decoder.searchesForFrames,
                recoveries: state.recoveries, url: location.description)
            if case .fail(let failure) = DecodeFailurePlanner.decoderFailed(error, facts: facts) { throw failure }
            logger.debug("decoder resync after damage", metadata: ["error": "\(error)"])
            try recover(decoder, inputBuffer: inputBuffer, state: &state)
            return .needMore
        }
        if let failure = state.pump?.failure { throw failure }
        guard step == .finished else { return step }
        // The decoder declares an end while input goes on, or with audio in what it was fed:
        // what follows was taken for another stream (a false header in garbage), or is the next
        // part of MP3s joined with `cat`. Decode on from the next good frame.
        let rest = unconsumedRest(of: decoder, inputBuffer: inputBuffer, state: state)
        switch DecodeFailurePlanner.decoderFinished(
            searchesForFrames: decoder.searchesForFrames, recoveries: state.recoveries, url: location.description,
            inputGoesOn: input.control.outcome(of: state.generation) == nil || ring.available(generation: state.generation) > 0,
            restAudioStart: rest.flatMap { ContentSniffer.audioStart(inRest: $0.bytes) }
        ) {
        case .recover?:
            logger.debug("decoder ended while input goes on; decoding on from the next frame",
                         metadata: ["location": "\(location)", "recoveries": "\(state.recoveries + 1)"])
            try recover(decoder, inputBuffer: inputBuffer, state: &state)
            return .needMore
        case .decodeRest(let start)?:
            guard let rest else { return step }
            logger.debug("decoder ended before the input's last bytes, which hold audio; decoding them",
                         metadata: ["location": "\(location)", "bytes": "\(rest.bytes.count - start)"])
            state.recoveries += 1
            try restart(decoder, onHeld: rest, from: start)
            // No more input will come to make the decode loop decode again: decode now. Each
            // such restart counts against the recovery limit, which bounds the recursion.
            return try decode(decoder, into: pcm, inputBuffer: inputBuffer, state: &state)
        case .fail(let failure)?: throw failure
        case nil: return step
        }
    }

    /// The bytes the decoder was fed but did not decode, as far as the feed buffer still holds
    /// them (the last read), and the input offset of the first; `nil` when it holds none of
    /// them. Only for a decoder fed by ``feed(_:buffer:state:)`` (one that searches for frames):
    /// libmpg123 ends or fails within the last read, so only a partial frame before it can be
    /// missing.
    func unconsumedRest(of decoder: any AudioDecoder, inputBuffer: UnsafeMutableRawBufferPointer,
                        state: DecodeState) -> (bytes: UnsafeRawBufferPointer, offset: Int)? {
        guard decoder.searchesForFrames, let holds = state.inputBufferHolds else { return nil }
        let unconsumed = holds.clamped(to: decoder.inputPosition..<max(decoder.inputPosition, state.inputPosition))
        guard !unconsumed.isEmpty else { return nil }
        let start = unconsumed.lowerBound - holds.lowerBound, end = unconsumed.upperBound - holds.lowerBound
        return (UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(inputBuffer)[start..<end]), unconsumed.lowerBound)
    }

    /// Restarts the decoder at `index` into `rest` (``unconsumedRest(of:inputBuffer:state:)``)
    /// and feeds it the bytes from there, continuing the timeline where it is.
    func restart(_ decoder: any AudioDecoder, onHeld rest: (bytes: UnsafeRawBufferPointer, offset: Int),
                 from index: Int) throws(PlayerError) {
        let frame = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
        try decoder.restart(atByte: rest.offset + index, frame: frame)
        if rest.bytes.count > index { try decoder.feed(UnsafeRawBufferPointer(rebasing: rest.bytes[index...])) }
    }

    /// Restarts the decoder after a damaged stretch, just past where it stopped, so that the
    /// good frames it had been fed are not lost. Where the input can restart at a byte, it does
    /// so there; otherwise the decoder is fed again what the feed buffer still holds of its
    /// rest (the last read: a partial frame before it is lost), and decoding goes on with the
    /// bytes still to come.
    func recover(_ decoder: any AudioDecoder, inputBuffer: UnsafeMutableRawBufferPointer,
                 state: inout DecodeState) throws(PlayerError) {
        state.recoveries += 1
        let frame = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
        if input.control.info?.supportsRanges == true {
            let resumeAt = decoder.inputPosition + 1
            restartInput(at: resumeAt, state: &state)
            try decoder.restart(atByte: resumeAt, frame: frame)
        } else if let rest = unconsumedRest(of: decoder, inputBuffer: inputBuffer, state: state) {
            // Past the byte the decoder stopped at; from the buffer's first byte when the
            // decoder stopped before the last read (what came before it is gone).
            try restart(decoder, onHeld: rest, from: rest.offset == decoder.inputPosition ? 1 : 0)
        } else {
            try decoder.restart(atByte: state.inputPosition, frame: frame)
        }
    }

    /// Moves ring bytes into the decoder. Returns `false` when the ring had none.
    func feed(_ decoder: DecoderChoice, buffer: UnsafeMutableRawBufferPointer,
                      state: inout DecodeState) throws(PlayerError) -> Bool {
        let discontinuity = state.skipTo == nil
            ? input.control.discontinuity(atOrAfter: state.inputPosition, generation: state.generation) : nil
        let limit: Int
        switch FeedPlanner.next(inputPosition: state.inputPosition, skipTo: state.skipTo, discontinuity: discontinuity,
                                passedDiscontinuity: state.passedDiscontinuity, bufferSize: buffer.count) {
        case .skip(let count):
            let skipped = ring.skip(count, generation: state.generation)
            state.inputPosition += skipped
            if let skipTo = state.skipTo, state.inputPosition >= skipTo { state.skipTo = nil }
            return skipped > 0
        case .read(let most, let restartAt):
            if let restartAt {
                state.passedDiscontinuity = restartAt
                let frame = baseFrame.load(ordering: .relaxed) + framesWritten.load(ordering: .relaxed)
                try decoder.restart(atByte: restartAt, frame: frame)
            }
            limit = most
        }
        let readable = UnsafeMutableRawBufferPointer(rebasing: buffer[..<limit])
        let count = ring.read(into: readable, generation: state.generation)
        if count > 0 { state.inputBufferHolds = state.inputPosition..<(state.inputPosition + count) }
        if state.sniffed != nil {
            return try sniff(UnsafeRawBufferPointer(rebasing: buffer[..<count]), decoder: decoder, state: &state)
        }
        guard count > 0 else { return false }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        try decoder.feed(bytes)
        state.inputPosition += count
        state.bytesFed += count
        noteTransfer(state: &state, delivered: true)
        if decoder.format == nil, decoder.searchesForFrames, state.bytesFed > Self.sniffLimit {
            throw .notAudio(url: location.description, reason: "no MPEG audio frame in the first \(state.bytesFed) bytes")
        }
        return true
    }

    /// Holds the input's first bytes until ``ContentSniffer`` tells what they are, then feeds
    /// them to the decoder, skips an ID3v2 tag in front, or refuses what it cannot play.
    /// - Returns: `false` when no bytes came and nothing was decided.
    func sniff(_ bytes: UnsafeRawBufferPointer, decoder: DecoderChoice,
                       state: inout DecodeState) throws(PlayerError) -> Bool {
        if state.sniffed?.isEmpty == true, !bytes.isEmpty { decide { $0.bytesArrived() } }
        state.sniffed?.append(contentsOf: bytes)
        state.inputPosition += bytes.count
        if !bytes.isEmpty { noteTransfer(state: &state, delivered: true) }
        let held = state.sniffed ?? []
        let ended = bytes.isEmpty && input.control.outcome(of: state.generation) == .finished
            && ring.available(generation: state.generation) == 0
        // Nothing came, or the input ended empty: the decode loop handles both.
        if bytes.isEmpty && (!ended || held.isEmpty) { return false }
        let heldStart = state.inputPosition - held.count
        let verdict = held.withUnsafeBytes { ContentSniffer.sniff($0, isComplete: ended || held.count >= Self.sniffLimit) }
        switch FirstBytesPlanner.step(for: verdict, held: held.count, inputEnded: ended, url: location.description) {
        case .waitForMore:
            return true
        case .passTag(let size):
            // The tag's names are reported with the other tags' once the audio is known
            // (``reportTags``); its ReplayGain goes to the decoder, which applies it.
            if var names = ID3TagReader.read(held.prefix(size)) {
                if let gain = names.replayGainValues { decoder.useReplayGain(fromTag: gain) }
                names.replayGainValues = nil
                state.heldTags = names
            }
            try decoder.restart(atByte: heldStart + size, frame: 0)
            switch LeadingTagPlanner.wayPast(
                tagSize: size, tagStart: heldStart, held: held.count, inputPosition: state.inputPosition,
                buffered: ring.available(generation: state.generation),
                supportsRanges: input.control.info?.supportsRanges == true
            ) {
            case .sniffHeld(let index): state.sniffed = Array(held[index...])
            case .restartInput(let tagEnd):
                state.sniffed = []
                restartInput(at: tagEnd, state: &state)
            case .skip(let tagEnd):
                state.sniffed = []
                state.skipTo = tagEnd
            }
            return true
        case .decodeAsMPEG:
            state.sniffed = nil
            try held.withPlayerBytes { bytes throws(PlayerError) in try decoder.feed(bytes) }
            state.bytesFed += held.count
            return true
        case .decodeWithFFmpeg(let signature):
            // FFmpeg reads on from the bytes held.
            guard let pump = state.pump else {
                throw .unsupportedFormat(url: location.description, format: signature.description)
            }
            let ffmpeg = try FFmpegDecoder(container: signature, pump: pump, replayGain: configuration.replayGain)
            try ffmpeg.restart(atByte: heldStart, frame: 0)
            decoder.choose(ffmpeg)
            logger.debug("decoder", metadata: ["container": "\(signature)", "location": "\(location)"])
            state.sniffed = nil
            try held.withPlayerBytes { bytes throws(PlayerError) in try decoder.feed(bytes) }
            state.bytesFed += held.count
            return true
        case .fail(let failure):
            throw failure
        }
    }

    /// No input is waiting and more will come: wakes again before the sink's queue runs out,
    /// and pauses it to refill rather than let the sound server underflow again and again.
    func awaitInput(decoder: any AudioDecoder, state: inout DecodeState) {
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
        if !ring.announceConsumerWaiting(generation: state.generation) {
            wake.wait(timeout: timeout)
        }
    }

    /// Whether a rebuffer is over: enough input is buffered to play on without flapping (see
    /// ``RefillPolicy``), or the input has ended. Ends it then.
    func refilled(decoder: any AudioDecoder, state: inout DecodeState) -> Bool {
        let gate = output
        guard gate.isRebuffering else { return true }
        // The refill reads nothing until it is done: what an earlier request left in the ring
        // (a seek restarted the input meanwhile) must not keep this one's bytes out.
        ring.discardOlderGenerations(than: state.generation)
        let bytesPerSecond = decoder.bytesPerSecond ?? 16_000
        let available = ring.available(generation: state.generation)
        let received = state.inputPosition + available
        let remaining = input.control.info?.totalLength.map { $0 - received }
        noteTransfer(state: &state, delivered: false)
        // The transfer's rate on the input's clock (the state machine keeps the real one).
        let linkRate = state.transferRate.bytesPerSecond(at: configuration.clock.now.inSeconds)
        let policy = RefillPolicy(standardRefill: configuration.rebufferRefill, prebuffer: configuration.prebuffer)
        let refill = policy.refillSeconds(bytesPerSecond: Double(bytesPerSecond), linkBytesPerSecond: linkRate,
                                          remainingBytes: remaining,
                                          firstStall: gate.isFirstStall(settledAfter: RefillPolicy.settledAfter))
        let target = RefillPolicy.refillBytes(seconds: refill, bytesPerSecond: bytesPerSecond, ringCapacity: ring.capacity)
        guard available >= target
                || input.control.outcome(of: state.generation) != nil
                || commands.withEngineLock({ $0.stopRequested || $0.machine.seekTarget != nil }) else { return false }
        logger.debug("refilled", metadata: [
            "buffered": "\(available)", "target": "\(target)", "link": "\(linkRate.map { "\(Int($0)) B/s" } ?? "not measured yet")",
        ])
        decide { $0.refilled(at: .now) }
        return true
    }

    /// Shows the transfer's rate meter the bytes received so far (read, and waiting in the
    /// ring). `delivered`: called right after this generation's bytes were read; the first
    /// such call begins the measure, and calls before it are ignored.
    func noteTransfer(state: inout DecodeState, delivered: Bool) {
        guard delivered || state.transferRate.hasBegun else { return }
        let received = state.inputPosition + ring.available(generation: state.generation)
        state.transferRate.observe(received: received, at: configuration.clock.now.inSeconds)
    }

    func restartInput(at offset: Int, state: inout DecodeState) {
        logger.trace("input restart", metadata: [
            "offset": "\(offset)", "generation": "\(state.generation + 1)", "ringHolds": "\(ring.available)",
            "rebuffering": "\(output.isRebuffering)",
        ])
        beginGeneration(at: offset, state: &state)
        input.start(at: offset, generation: state.generation)
    }

    /// Bytes of a new request, from `offset`, are told apart from the old ones by a new
    /// generation; what was read or skipped of the old one is forgotten.
    func beginGeneration(at offset: Int, state: inout DecodeState) {
        state.generation += 1
        state.inputPosition = offset
        state.transferRate = TransferRateMeter()
        state.skipTo = nil
        state.passedDiscontinuity = nil
        state.inputBufferHolds = nil
    }
}
