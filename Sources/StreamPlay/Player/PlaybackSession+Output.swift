// Decoded audio into the sink: opening it, the prebuffer and rebuffer through the state machine,
// format switches, the end of the track and the gapless hand-off.

extension PlaybackSession {
    /// Opens the sink for the first audio. A preloaded session first waits, its first audio
    /// decoded, until it is activated. Returns `false` when stopped while waiting.
    func attach(format: AudioFormat, state: DecodeState) throws(PlayerError) -> Bool {
        if !activated.load(ordering: .acquiring) {
            waitingFormat.withEngineLock { $0 = format }
            while !activated.load(ordering: .acquiring) {
                if isStopRequested { return false }
                wake.wait(timeout: 0.1)
            }
        }
        // Activated and stopped at once: a stop that came first wins, before the sink is touched.
        let stopped = commands.withEngineLock { commands -> Bool in
            if commands.stopRequested { return true }
            commands.claimedSink = true
            return false
        }
        if stopped { return false }
        try sink.open(format: format)
        attached.store(true, ordering: .releasing)
        state.attached = true
        timeline.opened(sampleRate: format.sampleRate)
        report(.format(format))
        // Asked of the sink before the lock: a sink's own code never runs under it.
        let prebuffer = prebufferFrames(format)
        decide(updating: state) { machine in
            machine.outputOpened(prebufferFrames: prebuffer)
            return []
        }
        return true
    }

    /// Tells the player, once, when the track's end is near enough to open the next one (see
    /// ``TrackEndPlanner/isNearingEnd(secondsToLength:bytesLeft:bytesPerSecond:)``).
    func checkNearingEnd(decoder: any AudioDecoder, state: DecodeState) {
        guard !state.nearingEndReported, state.attached, let format = state.format else { return }
        let secondsToLength = state.endFrame.map { endFrame in
            format.seconds(forFrames: max(endFrame - timeline.nextFrame, 0))
        }
        let complete = state.feed.outcome == .finished
        guard TrackEndPlanner.isNearingEnd(secondsToLength: secondsToLength,
                                           bytesLeft: complete ? state.feed.buffered : nil,
                                           bytesPerSecond: decoder.bytesPerSecond) else { return }
        state.nearingEndReported = true
        report(.nearingEnd)
    }

    /// A new stream follows within the input (an HLS discontinuity). In another format, the sink
    /// plays out the old audio, reopens in the new format, and the timeline goes on at the new
    /// rate, as ``PlaybackStateMachine/streamFormatChanged(attached:)`` decides; in the same
    /// format, audio simply goes on.
    func switchFormat(from previous: AudioFormat, to format: AudioFormat,
                      state: DecodeState) throws(PlayerError) {
        guard previous != format else { return }
        let attached = state.attached
        let step = decide(updating: state) { $0.machine.streamFormatChanged(attached: attached) }
        state.format = format
        if let length, length > 0 {
            state.endFrame = format.frames(forSeconds: startTime + length)
        }
        logger.debug("format change", metadata: ["from": "\(previous)", "to": "\(format)"])
        // Not attached: nothing was written, and `attach` opens the sink in the new format.
        guard step == .drainThenReopen else { return }
        // Interrupted by a seek or a stop, which start the output over anyway.
        _ = try sink.drain()
        let seconds = previous.seconds(forFrames: timeline.nextFrame)
        try sink.open(format: format)
        timeline.opened(sampleRate: format.sampleRate)
        timeline.rebase(at: format.frames(forSeconds: seconds))
        state.rebase = false
        report(.format(format))
        // The new stream is corked: it starts like a track, once its prebuffer is written.
        let prebuffer = prebufferFrames(format)
        decide(updating: state) { machine in
            machine.outputOpened(prebufferFrames: prebuffer)
            return []
        }
    }

    func reportDuration(decoder: any AudioDecoder, state: DecodeState) {
        guard let total = decoder.totalFrames, let format = decoder.format else { return }
        state.durationReported = true
        report(.duration(format.seconds(forFrames: total)))
    }

    /// Hands decoded audio to the sink, split as ``ChunkSplit`` says, and starts output once the
    /// prebuffer is full. Returns `true` when the requested length has been reached.
    func deliver(pcm: UnsafeRawBufferPointer, firstFrame: Int, format: AudioFormat,
                         state: DecodeState) throws(PlayerError) -> Bool {
        if state.rebase {
            state.rebase = false
            timeline.rebase(at: firstFrame)
        }
        let split = ChunkSplit(
            byteCount: pcm.count, bytesPerFrame: format.bytesPerFrame,
            // Counted from the timeline, not the decoder: after a resync the decoder counts anew.
            framesToEnd: state.endFrame.map { $0 - timeline.nextFrame },
            framesBeforeStart: state.output.framesBeforeStart)
        var written = 0
        if let prebuffer = split.prebuffer {
            guard try write(UnsafeRawBufferPointer(rebasing: pcm[..<prebuffer]), format: format) else { return false }
            decide(updating: state) { $0.framesQueued(prebuffer / format.bytesPerFrame) }
            written = prebuffer
        }
        guard try write(UnsafeRawBufferPointer(rebasing: pcm[written..<(written + split.rest)]), format: format)
        else { return false }
        return split.reachesEnd
    }

    /// Queues `bytes` in the sink and counts them.
    /// - Returns: `false` if a seek or stop interrupted the write (the rest is not wanted).
    func write(_ bytes: UnsafeRawBufferPointer, format: AudioFormat) throws(PlayerError) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = try sink.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += count
            timeline.wrote(frames: count / format.bytesPerFrame)
            guard offset < bytes.count else { break }
            // Interrupted. A command taken before the interrupt arrived can leave it behind:
            // only a seek or stop still pending means the rest of the audio is not wanted.
            if hasPendingSeekOrStop { return false }
            sink.clearInterrupt()
            if hasPendingSeekOrStop { return false }
        }
        return true
    }

    var hasPendingSeekOrStop: Bool {
        commands.withEngineLock { $0.stopRequested || $0.machine.seekTarget != nil }
    }

    func countRebuffer(_ seconds: Double) {
        rebuffers.add(1, ordering: .relaxed)
        rebufferMilliseconds.add(Int(seconds * 1000), ordering: .relaxed)
    }

    /// Frames queued before output starts: never more than half what the sink queues while
    /// stopped, or it could never start.
    func prebufferFrames(_ format: AudioFormat) -> Int {
        min(format.frames(forSeconds: configuration.prebuffer), sink.queueCapacityFrames / 2)
    }

    /// Carries out the track's ending, step by step, as the state machine decides it
    /// (``PlaybackStateMachine/nextEndingStep(_:)``): the pause waited out, the sink offered to
    /// the next track, the drain.
    /// - Returns: `true` when the play is over (ended, or handed off), `false` when a command
    ///   cut it short and the decode loop takes it first.
    func finishPlayback(state: DecodeState) throws(PlayerError) -> Bool {
        while true {
            let facts = TrackEnding.Facts(
                attached: state.attached, sinkIsRealTime: sink.isRealTime, formatKnown: state.format != nil,
                nearingEndReported: state.nearingEndReported, canHandOff: handOff != nil)
            let step = decide(updating: state) { $0.machine.nextEndingStep(facts) }
            switch step {
            case .finish(let final):
                if case .failed(let error) = final { throw error }
                return true
            case .waitForResume:
                // Interruptible: a resume, a seek or a stop signals `wake`.
                wake.wait(timeout: 0.25)
                return false
            case .reportNearingEnd:
                state.nearingEndReported = true
                report(.nearingEnd)
            case .offerHandOff:
                if let handOff, let format = state.format, handOff(format) {
                    // The next track writes on into the sink: no drain, no gap.
                    handedOff.store(true, ordering: .releasing)
                    return true
                }
            case .drainSink:
                guard try sink.drain() else {
                    commands.withEngineLock { $0.machine.drainInterrupted() }
                    return false
                }
                if case .failed(let error) = commands.withEngineLock({ $0.machine.drained() }) { throw error }
                return true
            }
        }
    }
}
