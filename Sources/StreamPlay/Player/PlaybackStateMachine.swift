/// Where one play of one track is, with pause as an overlay: events in, actions out.
///
/// A value that ``PlaybackControl`` keeps under its commands lock. The decoder thread tells it
/// what happened to the track (first bytes, the input's facts, first audio, frames queued, the
/// input starving or refilled, a seek landed, the drain, the end) and control threads tell it
/// pause, resume and seek; it answers with what to carry out: start or pause the sink, which
/// ``PlayerState``, buffering progress and rebuffers the listener is told, whether a seek is
/// taken, refused (a live stream) or needs a new play. When output starts and pauses to refill
/// is its ``output`` gate's to decide (``OutputGate``). ``PlaybackControl`` carries the
/// actions out after releasing the lock, in the order they were decided (see
/// ``PlaybackControl/decide(_:)``). No threads, no sink, no clock: tested on its own.
///
/// The listener sees fewer states than the machine has: sniffing is still ``PlayerState/connecting``,
/// prebuffering and rebuffering are both ``PlayerState/buffering``, draining is still
/// ``PlayerState/playing``, and a track handed off to the next one without a gap has
/// ``PlayerState/ended``. While paused, the listener sees ``PlayerState/paused`` until the play
/// ends; a change of phase under the pause is told at the resume.
struct PlaybackStateMachine: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Waiting for the first bytes of the resource.
        case connecting
        /// Bytes came; ``ContentSniffer`` and the decoder look for the first audio.
        case sniffing
        /// The first audio is decoded (or a new stream within the input opened): queueing it
        /// until output starts.
        case prebuffering
        /// Output runs.
        case playing
        /// The input starved: the sink is paused until enough is buffered again.
        case rebuffering
        /// The input is done: the sink plays out what it holds.
        case draining
        /// The next track took over the sink at this one's end (gapless): this play is over.
        case handedOff
        /// The track played to its end (or its length).
        case ended
        /// Stopped before its end.
        case stopped
        /// The play failed.
        case failed(PlayerError)

        /// No play is in progress any more.
        var isFinal: Bool {
            switch self {
            case .handedOff, .ended, .stopped, .failed: true
            default: false
            }
        }

        /// What the listener is told of this phase, without the pause overlay.
        var listenerState: PlayerState {
            switch self {
            case .connecting, .sniffing: .connecting
            case .prebuffering, .rebuffering: .buffering
            case .playing, .draining: .playing
            case .handedOff, .ended: .ended
            case .stopped: .idle
            case .failed(let error): .failed(error)
            }
        }
    }

    /// What the session carries out, in this order, with no lock held.
    enum Action: Sendable, Equatable {
        /// Start (or resume) the sink.
        case startSink
        /// Pause (cork) the sink.
        case pauseSink
        /// Tell the listener this state.
        case report(PlayerState)
        /// Tell the listener how much of the prebuffer is queued, 0 to 1.
        case reportBufferingProgress(Double)
        /// A rebuffer ended after this many seconds: counted in the play's statistics, and told
        /// to the listener unless a seek cut it short (`told` is then `false`).
        case rebufferEnded(seconds: Double, told: Bool)
    }

    private(set) var phase: Phase = .connecting
    /// Paused by the listener: an overlay on any phase that is not final.
    private(set) var isPaused = false
    /// The state last told to the listener; nothing is told twice in a row.
    private(set) var reported: PlayerState = .connecting

    /// What the listener sees now.
    var state: PlayerState {
        isPaused && !phase.isFinal ? .paused : phase.listenerState
    }

    /// Whether the sink should be running: output has started, the input has not starved, and
    /// the listener has not paused.
    var sinkRuns: Bool {
        !isPaused && (phase == .playing || phase == .draining)
    }

    /// The input's first bytes came: the sniffer and the decoder look at them.
    mutating func bytesArrived() -> [Action] {
        guard phase == .connecting else { return [] }
        phase = .sniffing
        return told()
    }

    /// The first audio frame was decoded: it is queued until output starts.
    mutating func firstAudioDecoded() -> [Action] {
        guard phase == .connecting || phase == .sniffing else { return [] }
        phase = .prebuffering
        return told()
    }

    /// The input is done: once output runs, the sink plays out what it holds.
    private mutating func drainBegan() -> [Action] {
        guard phase == .playing, output.isStarted else { return [] }
        phase = .draining
        return told()
    }

    /// A seek landed: the ending (and a drain under way) is called off, and output starts over
    /// once the new position is prebuffered (a rebuffer under way ends without a report); the
    /// listener keeps seeing what it saw.
    mutating func seekLanded(at now: ContinuousClock.Instant) -> [Action] {
        ending.cancel()
        let actions = follow(output.restart(at: now))
        guard phase == .draining else { return actions }
        phase = .playing
        return actions + told()
    }

    /// The play is over: `final` is one of the final phases, told to the listener even while
    /// paused. Nothing changes once the play is over.
    mutating func finished(_ final: Phase) -> [Action] {
        guard !phase.isFinal, final.isFinal else { return [] }
        phase = final
        return told()
    }

    /// Output may start (the prebuffer is queued, or a rebuffer refilled): the sink starts
    /// unless the listener paused, and the phase becomes ``Phase/playing``.
    private mutating func outputStarted() -> [Action] {
        guard !phase.isFinal else { return [] }
        phase = .playing
        return (isPaused ? [] : [.startSink]) + told()
    }

    /// The input ran dry while output runs: the sink pauses until it refills.
    private mutating func starved() -> [Action] {
        guard !phase.isFinal else { return [] }
        phase = .rebuffering
        return [.pauseSink] + told()
    }

    /// The listener paused: the sink pauses at once, whatever the phase.
    mutating func pause() -> [Action] {
        guard !isPaused, !phase.isFinal else { return [] }
        isPaused = true
        return [.pauseSink] + told()
    }

    /// The listener resumed: the sink starts again if output had started.
    mutating func resume() -> [Action] {
        guard isPaused, !phase.isFinal else { return [] }
        isPaused = false
        return (sinkRuns ? [.startSink] : []) + told()
    }

    // MARK: Output

    /// When output starts, pauses to refill, and starts over. Only the decoder thread's events
    /// change it; the machine turns what it decides into its own actions, so that a prebuffer
    /// that fills while the listener paused leaves the sink paused.
    private(set) var output = OutputGate()

    /// A (new) stream opened in the sink: output waits for `prebufferFrames` of it.
    mutating func outputOpened(prebufferFrames: Int) {
        output.opened(prebufferFrames: prebufferFrames)
    }

    /// `frames` were queued before output started: progress, and output starts once the
    /// prebuffer is full.
    mutating func framesQueued(_ frames: Int) -> [Action] {
        follow(output.queued(frames: frames))
    }

    /// Output starts now, full prebuffer or not (the input ended first, or the stream changed
    /// format).
    private mutating func startOutput() -> [Action] {
        follow(output.start())
    }

    /// What the decoder thread does while no input is waiting (see
    /// ``inputStarving(spareSeconds:searching:at:)``).
    enum InputWait: Sendable, Equatable {
        /// Output paused to refill: the next turn is the refill's, with no wait.
        case refill
        /// Wait this many seconds at most for input or a command.
        case wait(seconds: Double)
    }

    /// The longest the decoder thread waits for input before it looks again.
    static let longestInputWait = 0.5
    /// The shortest: a sink about to run out is looked at again this soon, not in a busy loop.
    static let shortestInputWait = 0.005

    /// No input is waiting, and more will come. `spareSeconds` is the audio a real-time sink
    /// still holds above ``OutputGate/underrunThreshold`` (`nil` for a sink that does not run
    /// out, a file or the null sink, or before the format is known). While output runs
    /// unpaused, a sink with none to spare pauses to refill rather than let the sound server
    /// underflow again and again; one with some is looked at again before it runs out. A seek's
    /// search inside the decoder (`searching`) starts no rebuffer: its refill would wait on
    /// every step of the search.
    mutating func inputStarving(spareSeconds: Double?, searching: Bool = false,
                                at now: ContinuousClock.Instant) -> (InputWait, [Action]) {
        guard let spareSeconds, !phase.isFinal, output.isRunning, !searching, !isPaused else {
            return (.wait(seconds: Self.longestInputWait), [])
        }
        let actions = follow(output.starving(spareSeconds: spareSeconds, at: now))
        if output.isRebuffering { return (.refill, actions) }
        return (.wait(seconds: min(Self.longestInputWait, max(Self.shortestInputWait, spareSeconds))), actions)
    }

    /// Enough input is buffered again (or the input ended): output resumes.
    private mutating func refilled(at now: ContinuousClock.Instant) -> [Action] {
        follow(output.refilled(at: now))
    }

    /// What the decoder thread knows while output waits for a refill.
    struct RefillFacts: Sendable, Equatable {
        /// Bytes of the current request waiting in the input ring.
        var bufferedBytes: Int
        /// The stream's bitrate, in bytes a second.
        var bytesPerSecond: Int
        /// The transfer's rate, once ``TransferRateMeter`` has measured it.
        var linkBytesPerSecond: Double?
        /// Bytes of the resource not received yet, when its length is known.
        var remainingBytes: Int?
        /// The input ring's capacity: a refill never waits for more than it can hold.
        var ringCapacity: Int
        /// The transfer ended (finished or failed): no more bytes will come.
        var inputEnded = false
        /// The player asked this play to stop.
        var stopRequested = false
    }

    /// How a refill stands (see ``refillProgress(_:policy:at:)``).
    enum RefillProgress: Sendable, Equatable {
        /// Output is not waiting for a refill.
        case notRebuffering
        /// Output waits until this many bytes are buffered.
        case waiting(targetBytes: Int)
        /// The refill is over: this many bytes were wanted, and they came, or the input ended,
        /// or a seek or a stop came first. Output resumes.
        case done(targetBytes: Int)
    }

    /// Whether a rebuffer has refilled: enough bytes to play on without stalling again soon,
    /// as `policy` sizes them from the link and whether this is a first stall, or nothing more
    /// to wait for. When it has, output resumes (``refilled(at:)``).
    mutating func refillProgress(_ facts: RefillFacts, policy: RefillPolicy,
                                 at now: ContinuousClock.Instant) -> (RefillProgress, [Action]) {
        guard output.isRebuffering else { return (.notRebuffering, []) }
        let seconds = policy.refillSeconds(
            bytesPerSecond: Double(facts.bytesPerSecond), linkBytesPerSecond: facts.linkBytesPerSecond,
            remainingBytes: facts.remainingBytes, firstStall: output.isFirstStall(settledAfter: RefillPolicy.settledAfter))
        let target = RefillPolicy.refillBytes(seconds: seconds, bytesPerSecond: facts.bytesPerSecond,
                                              ringCapacity: facts.ringCapacity)
        guard facts.bufferedBytes >= target || facts.inputEnded || facts.stopRequested || seekTarget != nil else {
            return (.waiting(targetBytes: target), [])
        }
        return (.done(targetBytes: target), refilled(at: now))
    }

    /// How the decoder thread moves the sink to a new stream's format (see
    /// ``streamFormatChanged(attached:)``).
    enum FormatSwitch: Sendable, Equatable {
        /// The sink is not this track's yet (no audio was written): the format is simply the
        /// one the sink opens with, when the first audio comes.
        case adopt
        /// Play out what the sink holds of the old stream, then reopen it in the new format.
        case drainThenReopen
    }

    /// A new stream in another format follows within the input (an HLS discontinuity), with the
    /// sink `attached` for this track or not. Reopening a sound server's stream drops what it
    /// has not played, so the old audio is played out first; output that never started (the
    /// old stream was shorter than the prebuffer) starts here, as at a track's end. A paused
    /// listener's sink stays paused: the drain then waits in the sink for the resume (a seek or
    /// a stop interrupts it).
    mutating func streamFormatChanged(attached: Bool) -> (FormatSwitch, [Action]) {
        guard attached else { return (.adopt, []) }
        return (.drainThenReopen, output.isStarted ? [] : startOutput())
    }

    /// The machine's actions for what the output gate decided, in its order; none once the
    /// play is over.
    private mutating func follow(_ decided: [OutputGate.Action]) -> [Action] {
        guard !phase.isFinal else { return [] }
        var actions: [Action] = []
        for action in decided {
            switch action {
            case .startSink: actions += outputStarted()
            case .pauseSink: actions += starved()
            case .progress(let fraction): actions.append(.reportBufferingProgress(fraction))
            case .rebuffered(let seconds): actions.append(.rebufferEnded(seconds: seconds, told: true))
            case .rebufferAbandoned(let seconds): actions.append(.rebufferEnded(seconds: seconds, told: false))
            }
        }
        return actions
    }

    // MARK: Seeks

    /// The target of a seek the decoder thread has not taken yet.
    private(set) var seekTarget: Double?
    /// The target of a seek not carried out yet: what the position shows meanwhile.
    private(set) var shownSeekTarget: Double?
    /// The input turned out to be a live stream, which cannot seek.
    private(set) var isLive = false

    /// What became of a seek asked for.
    enum SeekAnswer: Sendable, Equatable {
        /// The decoder thread carries it out on its next turn.
        case accepted
        /// A live stream: refused at once, the audio under way goes on untouched.
        case refusedLive
        /// The track has ended: a seek needs a new play.
        case needsNewPlay
        /// The play is over otherwise (stopped or failed): nothing to seek.
        case dropped
    }

    /// The listener asked for audio from `seconds` on.
    mutating func seek(to seconds: Double) -> SeekAnswer {
        if isLive { return .refusedLive }
        switch phase {
        case .ended, .handedOff: return .needsNewPlay
        case .stopped, .failed: return .dropped
        default: break
        }
        seekTarget = max(seconds, 0)
        shownSeekTarget = seekTarget
        return .accepted
    }

    /// The decoder starts over from the beginning to reach `target` (it cannot seek back):
    /// the seek is carried out again once the format is known, and output starts over once
    /// the audio there is prebuffered.
    mutating func seekRestartsFromStart(to target: Double, at now: ContinuousClock.Instant) -> [Action] {
        pendingSeek = target
        return follow(output.restart(at: now))
    }

    /// The decoder thread carried out (or refused) the seek it took: the position is the
    /// timeline's again, unless another seek is already waiting.
    mutating func seekCarriedOut() {
        if seekTarget == nil { shownSeekTarget = nil }
    }

    /// The input's facts came: a live stream refuses seeks from now on.
    mutating func inputInfo(isEndless: Bool) {
        isLive = isEndless
    }

    // MARK: The decoder thread's turns and the track's end

    /// A seek the decoder thread took (or the play's start time), waiting for the decoder's
    /// format to be carried out.
    private(set) var pendingSeek: Double?
    /// The end of the track, once its last audio is decoded.
    private(set) var ending = TrackEnding()

    /// What the decoder thread knows at the top of a turn; the machine knows the rest (a seek,
    /// the pause, the ending, a rebuffer).
    struct TurnFacts: Sendable, Equatable {
        /// The player asked this play to stop.
        var stopRequested = false
        /// The decoder knows the audio's format.
        var formatKnown = false
        /// The sink plays in real time (PulseAudio), unlike a file or the null sink.
        var sinkIsRealTime = true
        /// The input's response arrived and was not applied yet.
        var inputInfoWaiting = false
    }

    /// The decoder thread begins decoding an input (a playlist's next entry, after one that
    /// played nothing): from `startTime`, with output and the ending as new. A seek taken and
    /// not carried out yet (the entry before failed first) is carried out on this one, so that
    /// the position, which shows its target, is not left there.
    mutating func decodingBegan(startTime: Double) {
        pendingSeek = pendingSeek ?? (startTime > 0 ? startTime : nil)
        output = OutputGate()
        ending = TrackEnding()
    }

    /// The one thing the decoder thread does in this turn (``DecodeTurn``). A seek the
    /// listener asked for is taken here, suspending an ending under way; a seek step hands
    /// its target over.
    mutating func nextTurn(_ facts: TurnFacts) -> DecodeTurn.Step {
        if let target = seekTarget {
            seekTarget = nil
            pendingSeek = target
            ending.suspend()
        }
        let step = DecodeTurn.next(DecodeTurn.Facts(
            stopRequested: facts.stopRequested, pendingSeek: pendingSeek, formatKnown: facts.formatKnown,
            pausedOnFasterThanRealTimeSink: isPaused && !facts.sinkIsRealTime,
            inputInfoWaiting: facts.inputInfoWaiting, ending: ending.isEnding, rebuffering: output.isRebuffering))
        if case .seek = step { pendingSeek = nil }
        return step
    }

    /// The last audio the track will have is decoded (the input ended, the decoder finished,
    /// or the requested length was reached): play it out, then end, or fail with `failure`.
    mutating func lastAudioDecoded(failure: PlayerError? = nil) {
        ending.begin(failure: failure)
    }

    /// The ending's next step (``TrackEnding``) for the decoder thread to carry out, and the
    /// actions before it: output that never started starts here (the track was shorter than
    /// the prebuffer), and a drain under way shows as ``Phase/draining``.
    mutating func nextEndingStep(_ facts: TrackEnding.Facts) -> (TrackEnding.Step, [Action]) {
        var actions = facts.attached && !output.isStarted ? startOutput() : []
        actions += drainBegan()
        return (ending.next(facts, paused: isPaused), actions)
    }

    /// A command (pause, seek, stop) cut the drain short: the next step begins again.
    mutating func drainInterrupted() {
        ending.drainInterrupted()
    }

    /// The sink played everything out: how the play ends (``Phase/ended``, or the input's
    /// failure).
    func drained() -> Phase {
        ending.drained()
    }

    /// The listener's state, if it differs from what was last told.
    private mutating func told() -> [Action] {
        let now = state
        guard now != reported else { return [] }
        reported = now
        return [.report(now)]
    }
}
