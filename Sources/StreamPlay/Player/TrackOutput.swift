import Logging
import Synchronization

/// The sink side of one play: opening the sink for the track's first audio, writing decoded
/// audio through the prebuffer, a new stream's format, and the track's ending with its gapless
/// hand-off. Decoder thread only, but for what other threads read: ``ownsSink``, ``attached``,
/// ``handedOff`` and ``secondsBeforeFirstAudio``.
///
/// What to do at each point is ``PlaybackStateMachine``'s to decide (through
/// ``PlaybackControl``); this type gathers the facts it needs and carries out the sink calls.
final class TrackOutput: Sendable {
    let playback: PlaybackControl
    let sink: any AudioSink
    /// Where the play is: this type writes it as audio goes to the sink.
    let timeline: PlaybackTimeline
    let configuration: PlayerConfiguration
    /// What the ending's wait for a resume sleeps on: a resume, a seek or a stop signals it.
    let wake: ThreadSignal
    /// Asked at the end of the track, with its format, whether the next track takes over the
    /// sink without a drain (gapless); `true` if it did.
    let handOff: (@Sendable (AudioFormat) -> Bool)?
    /// Set once the play has opened the sink; before that, it never touches it.
    let attached = Atomic<Bool>(false)
    /// Set when the next track took over the sink at this one's end: this one no longer touches it.
    let handedOff = Atomic<Bool>(false)
    var logger: Logger { configuration.logger }

    init(playback: PlaybackControl, sink: any AudioSink, timeline: PlaybackTimeline,
         configuration: PlayerConfiguration, wake: ThreadSignal, handOff: (@Sendable (AudioFormat) -> Bool)?) {
        self.playback = playback
        self.sink = sink
        self.timeline = timeline
        self.configuration = configuration
        self.wake = wake
        self.handOff = handOff
    }

    /// Whether this play may use the sink: it opened it and has not handed it over. Any thread.
    var ownsSink: Bool {
        attached.load(ordering: .acquiring) && !handedOff.load(ordering: .acquiring)
    }

    /// Seconds of earlier audio the sink plays before this play's first frame: the tail of the
    /// track that handed the sink over. 0 once this play's audio is heard; `nil` before the
    /// format is known. Any thread.
    var secondsBeforeFirstAudio: Double? {
        timeline.secondsBeforeFirstAudio { sink.latencyFrames }
    }

    /// Opens the sink for the first audio, in `format`, unless a stop came first.
    /// - Returns: `false` when stopped, before the sink was touched.
    func open(format: AudioFormat, state: DecodeState) throws(PlayerError) -> Bool {
        guard playback.claimSink() else { return false }
        try sink.open(format: format)
        attached.store(true, ordering: .releasing)
        state.attached = true
        timeline.opened(sampleRate: format.sampleRate)
        playback.report(.format(format))
        corkUntilPrebuffered(format, state: state)
        return true
    }

    /// The sink opened in `format` and is corked: output waits for the prebuffer.
    private func corkUntilPrebuffered(_ format: AudioFormat, state: DecodeState) {
        // Asked of the sink before the lock: a sink's own code never runs under it.
        let prebuffer = prebufferFrames(format)
        playback.decide(updating: state) { machine in
            machine.outputOpened(prebufferFrames: prebuffer)
            return []
        }
    }

    /// Frames queued before output starts: never more than half what the sink queues while
    /// stopped, or it could never start.
    func prebufferFrames(_ format: AudioFormat) -> Int {
        min(format.frames(forSeconds: configuration.prebuffer), sink.queueCapacityFrames / 2)
    }

    /// A new stream follows within the input (an HLS discontinuity). In another format, the sink
    /// plays out the old audio, reopens in the new format, and the timeline goes on at the new
    /// rate, as ``PlaybackStateMachine/streamFormatChanged(attached:)`` decides; in the same
    /// format, audio simply goes on. `state`'s format is already the new one.
    func switchFormat(from previous: AudioFormat, to format: AudioFormat,
                      state: DecodeState) throws(PlayerError) {
        guard previous != format else { return }
        let attached = state.attached
        let step = playback.decide(updating: state) { $0.machine.streamFormatChanged(attached: attached) }
        logger.debug("format change", metadata: ["from": "\(previous)", "to": "\(format)"])
        // Not attached: nothing was written, and the first audio opens the sink in the new format.
        guard step == .drainThenReopen else { return }
        // Interrupted by a seek or a stop, which start the output over anyway.
        _ = try sink.drain()
        let seconds = previous.seconds(forFrames: timeline.nextFrame)
        try sink.open(format: format)
        timeline.opened(sampleRate: format.sampleRate)
        timeline.rebase(at: format.frames(forSeconds: seconds))
        state.rebase = false
        playback.report(.format(format))
        // The new stream is corked: it starts like a track, once its prebuffer is written.
        corkUntilPrebuffered(format, state: state)
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
            playback.decide(updating: state) { $0.framesQueued(prebuffer / format.bytesPerFrame) }
            written = prebuffer
        }
        guard try write(UnsafeRawBufferPointer(rebasing: pcm[written..<(written + split.rest)]), format: format)
        else { return false }
        return split.reachesEnd
    }

    /// Queues `bytes` in the sink and counts them.
    /// - Returns: `false` if a seek or stop interrupted the write (the rest is not wanted).
    private func write(_ bytes: UnsafeRawBufferPointer, format: AudioFormat) throws(PlayerError) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = try sink.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += count
            timeline.wrote(frames: count / format.bytesPerFrame)
            guard offset < bytes.count else { break }
            // Interrupted. A command taken before the interrupt arrived can leave it behind:
            // only a seek or stop still pending means the rest of the audio is not wanted.
            if playback.hasPendingSeekOrStop { return false }
            sink.clearInterrupt()
            if playback.hasPendingSeekOrStop { return false }
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
        playback.report(.nearingEnd)
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
            let step = playback.decide(updating: state) { $0.machine.nextEndingStep(facts) }
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
                playback.report(.nearingEnd)
            case .offerHandOff:
                if let handOff, let format = state.format, handOff(format) {
                    // The next track writes on into the sink: no drain, no gap.
                    handedOff.store(true, ordering: .releasing)
                    return true
                }
            case .drainSink:
                guard try sink.drain() else {
                    playback.withMachine { $0.drainInterrupted() }
                    return false
                }
                if case .failed(let error) = playback.withMachine({ $0.drained() }) { throw error }
                return true
            }
        }
    }
}
