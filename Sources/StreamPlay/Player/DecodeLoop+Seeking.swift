// Seeks, byte and segment, as the seek planner decides them.

extension DecodeLoop {
    func performSeek(to target: Double, format: AudioFormat, decoder: any AudioDecoder,
                     state: DecodeState) throws(PlayerError) {
        defer {
            playback.withMachine { $0.seekCarriedOut() }
        }
        if input.control.info?.isEndless == true {
            playback.report(.seekRefused(.seekNotSupported(reason: "\(location) is a live stream")))
            return
        }
        if let playlist = input.segmentedPlaylist {
            try seekSegment(in: playlist, to: target, format: format, decoder: decoder, state: state)
            return
        }
        var frame = format.frames(forSeconds: target)
        if let total = decoder.totalFrames { frame = min(frame, max(total - 1, 0)) }
        let seeked: (frame: Int, inputOffset: Int?)?
        state.searching = true
        defer { state.searching = false }
        do {
            seeked = try decoder.seek(toFrame: frame)
        } catch where error.code == .seekNotSupported {
            playback.report(.seekRefused(error))
            return
        }
        guard let (landed, inputOffset) = seeked else {
            // The decoder started over: from the beginning, then this seek again.
            if state.attached { sink.flush() }
            state.feed.startOver()
            playback.decide(updating: state) { $0.seekRestartsFromStart(to: target, at: .now) }
            state.rebase = true
            return
        }
        land(at: landed, format: format, state: state)
        // A decoder that reads its input itself has moved it already.
        guard let offset = inputOffset else {
            logger.debug("seek", metadata: ["target": "\(target)", "landed": "\(landed)"])
            return
        }

        state.feed.reposition(to: offset, supportsRanges: input.control.info?.supportsRanges ?? false)
        logger.debug("seek", metadata: ["target": "\(target)", "landed": "\(landed)", "offset": "\(offset)"])
    }

    /// Seeks an HLS stream: from the start of a segment, decoding and dropping audio up to the
    /// target (see ``SeekPlanner/segmentPlan(in:to:format:samplesPerFrame:)``).
    func seekSegment(in playlist: HLSMediaPlaylist, to target: Double, format: AudioFormat,
                     decoder: any AudioDecoder, state: DecodeState) throws(PlayerError) {
        let plan = SeekPlanner.segmentPlan(in: playlist, to: target, format: format, samplesPerFrame: decoder.samplesPerFrame)
        let (index, startFrame, targetFrame) = (plan.segmentIndex, plan.startFrame, plan.targetFrame)
        state.feed.beginGeneration(at: 0)
        input.start(atSegment: index, generation: state.feed.generation)
        try decoder.restart(atByte: 0, frame: startFrame)
        state.discardBeforeFrame = targetFrame
        land(at: targetFrame, format: format, state: state)
        logger.debug("segment seek", metadata: ["target": "\(target)", "segment": "\(index)"])
    }

    /// A seek reached `frame`: what the sink holds is dropped, the timeline starts there, a
    /// rebuffer ends, and output starts again once the new position is prebuffered.
    func land(at frame: Int, format: AudioFormat, state: DecodeState) {
        if state.attached { sink.flush() }
        playback.decide(updating: state) { $0.seekLanded(at: .now) }
        timeline.rebase(at: frame)
        state.rebase = true
        playback.report(.seeked(format.seconds(forFrames: frame)))
    }
}
