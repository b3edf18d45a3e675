/// When a track's audio is heard: output starts once the prebuffer is queued, pauses to refill
/// when the input starves, and starts over after a seek.
///
/// The output part of ``PlaybackStateMachine``, which turns its actions into its own; only the
/// decoder thread's events change it. It takes what happened (frames queued, the sink's spare
/// audio, the time) and returns what to do, so that the hysteresis is tested with a hand-made
/// clock and no sink. How much a rebuffer refills is ``RefillPolicy``'s to say.
struct OutputGate: Sendable, Equatable {
    /// What the gate decides; ``PlaybackStateMachine`` turns it into its own actions.
    enum Action: Equatable, Sendable {
        /// Output starts (or resumes), unless the listener paused.
        case startSink
        /// Pause the sink before it underflows.
        case pauseSink
        /// The share of the prebuffer queued so far, 0 to 1.
        case progress(Double)
        /// A rebuffer ended after this many seconds (reported to the listener).
        case rebuffered(seconds: Double)
        /// A rebuffer this long was cut short by a seek (counted, not reported).
        case rebufferAbandoned(seconds: Double)
    }

    /// Queued audio below which a starved real-time sink is paused to refill, in seconds.
    static let underrunThreshold = 0.04

    /// Frames to queue before output starts.
    private(set) var prebufferFrames = 0
    /// Frames queued towards it.
    private(set) var framesBuffered = 0
    /// Whether output has started.
    private(set) var isStarted = false
    /// When the sink was paused to refill, while it is.
    private(set) var rebufferingSince: ContinuousClock.Instant?
    /// When the last rebuffer ended, since output last started from a prebuffer.
    private(set) var lastRefilledAt: ContinuousClock.Instant?
    private var lastProgressStep = -1

    var isRebuffering: Bool { rebufferingSince != nil }

    /// Whether output runs: started, and not paused to refill. Only then can a real-time sink
    /// run out, so only then is its queue worth asking for (it takes the sound server's lock).
    var isRunning: Bool { isStarted && !isRebuffering }

    /// Whether audio was queued in the sink since it opened (or output started).
    var hasQueuedAudio: Bool { isStarted || framesBuffered > 0 }

    /// Whether the rebuffer under way is a first stall, in ``RefillPolicy``'s sense: the first
    /// since output started from its prebuffer, or one that began more than `settledAfter`
    /// seconds after the last refill ended (the link kept up in between).
    func isFirstStall(settledAfter: Double) -> Bool {
        guard let lastRefilledAt, let rebufferingSince else { return true }
        return (rebufferingSince - lastRefilledAt).inSeconds > settledAfter
    }

    /// Frames still to queue before output starts; `nil` once started.
    var framesBeforeStart: Int? {
        isStarted ? nil : max(max(prebufferFrames, 1) - framesBuffered, 0)
    }

    /// A (new) stream opened in the sink: output waits for `prebufferFrames` of it.
    mutating func opened(prebufferFrames: Int) {
        self.prebufferFrames = prebufferFrames
        isStarted = false
        framesBuffered = 0
        lastRefilledAt = nil
    }

    /// `frames` were queued before output started; reports progress by quarters, and starts
    /// output when the prebuffer is full.
    mutating func queued(frames: Int) -> [Action] {
        guard !isStarted else { return [] }
        framesBuffered += frames
        let target = max(prebufferFrames, 1)
        if framesBuffered >= target { return start() }
        let step = framesBuffered * 4 / target
        guard step != lastProgressStep else { return [] }
        lastProgressStep = step
        return [.progress(Double(framesBuffered) / Double(target))]
    }

    /// Starts output now, full prebuffer or not (the input ended first).
    mutating func start() -> [Action] {
        isStarted = true
        return [.progress(1), .startSink]
    }

    /// The input ran dry while the sink plays: with `spareSeconds` of audio above
    /// ``underrunThreshold`` left in a real-time sink, pause it now (at zero or less) rather than
    /// let the sound server underflow again and again.
    mutating func starving(spareSeconds: Double, at now: ContinuousClock.Instant) -> [Action] {
        guard isStarted, rebufferingSince == nil, spareSeconds <= 0 else { return [] }
        rebufferingSince = now
        return [.pauseSink]
    }

    /// Enough input is buffered again (or the input ended, or a command came): output resumes.
    mutating func refilled(at now: ContinuousClock.Instant) -> [Action] {
        guard let since = rebufferingSince else { return [] }
        rebufferingSince = nil
        lastRefilledAt = now
        return [.rebuffered(seconds: (now - since).inSeconds), .startSink]
    }

    /// A seek: output starts over once the new position is prebuffered; a rebuffer under way
    /// ends without a report.
    mutating func restart(at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if let since = rebufferingSince {
            actions.append(.rebufferAbandoned(seconds: (now - since).inSeconds))
            rebufferingSince = nil
        }
        isStarted = false
        framesBuffered = 0
        lastProgressStep = -1
        lastRefilledAt = nil
        return actions
    }
}
