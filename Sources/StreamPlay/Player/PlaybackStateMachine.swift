/// Where one play of one track is, with pause as an overlay: events in, actions out.
///
/// A value that ``PlaybackSession`` keeps under its commands lock. The decoder thread tells it
/// what happened to the track (first bytes, first audio, output started, input starved, the
/// drain, the end) and control threads tell it pause and resume; it answers with what to carry
/// out: start or pause the sink, and which ``PlayerState`` the listener is told. The session
/// carries the actions out after releasing the lock, in the order they were decided (see
/// ``PlaybackSession/decide(_:)``). No threads, no sink, no clock: tested on its own.
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

    /// The input is done and output runs: the sink plays out what it holds.
    mutating func drainBegan() -> [Action] {
        guard phase == .playing else { return [] }
        phase = .draining
        return told()
    }

    /// A seek landed: a drain under way is called off (output goes on at the new position once
    /// it is prebuffered; the listener keeps seeing what it saw).
    mutating func seeked() -> [Action] {
        guard phase == .draining else { return [] }
        phase = .playing
        return told()
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
    mutating func outputStarted() -> [Action] {
        guard !phase.isFinal else { return [] }
        phase = .playing
        return (isPaused ? [] : [.startSink]) + told()
    }

    /// The input ran dry while output runs: the sink pauses until it refills.
    mutating func starved() -> [Action] {
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

    /// Whether a seek can still be carried out by this play: `nil` when it ended (a seek needs a
    /// new play), `false` when it is otherwise over (the seek is dropped), `true` when it goes on.
    var acceptsSeek: Bool? {
        switch phase {
        case .ended, .handedOff: nil
        case .stopped, .failed: false
        default: true
        }
    }

    /// The listener's state, if it differs from what was last told.
    private mutating func told() -> [Action] {
        let now = state
        guard now != reported else { return [] }
        reported = now
        return [.report(now)]
    }
}
