/// One turn of the decoder thread's loop: of everything that may be waiting for it (a stop, a
/// seek, a pause on a sink that does not wait for real time, the input's response, the end of
/// the track, a refill), the one thing it does now; decoding when nothing is.
///
/// ``PlaybackStateMachine/nextTurn(_:)`` asks it at the top of each turn, with the facts the
/// machine holds and those the loop gathers; the loop carries out the step and starts the next
/// turn. So the order in which these win over one another is a value, tested with no decoder,
/// input, sink or thread. What each step then does is decided by its own planner:
/// ``SeekPlanner`` for a seek, ``TrackEnding`` for the end,
/// ``PlaybackStateMachine/refillProgress(_:policy:at:)`` for a refill, ``TrackEndPlanner`` for
/// an input that ended while decoding.
enum DecodeTurn {
    /// What the decoder thread does in this turn.
    enum Step: Sendable, Equatable {
        /// A stop was asked for: the play is over (``PlaybackStateMachine/Phase/stopped``).
        case stop
        /// Carry out the seek to this target, in seconds.
        case seek(to: Double)
        /// The listener paused a sink that takes audio as fast as it comes (a file, the null
        /// sink): decoding now would run on past the pause. Wait for a command.
        case waitWhilePaused
        /// The input's response arrived: check its content type, hand its length to the decoder
        /// and report its duration, once.
        case applyInputInfo
        /// The last audio was decoded: carry out the ending's next step instead of decoding.
        case endTrack
        /// Output paused to refill: see whether enough is buffered to go on, and wait if not.
        case refill
        /// Decode (and feed the decoder) the next chunk.
        case decode
    }

    /// What the decoder thread knows at the top of a turn.
    struct Facts: Sendable, Equatable {
        /// The player asked this play to stop.
        var stopRequested = false
        /// A seek taken from the player and not carried out yet.
        var pendingSeek: Double?
        /// The decoder knows the audio's format: a seek needs it to count frames, and waits
        /// for it otherwise.
        var formatKnown = false
        /// The listener paused, and the sink does not play in real time.
        var pausedOnFasterThanRealTimeSink = false
        /// The input's response arrived and was not applied yet.
        var inputInfoWaiting = false
        /// The track is ending (``TrackEnding/isEnding``).
        var ending = false
        /// Output is paused to refill (``OutputGate/isRebuffering``).
        var rebuffering = false
    }

    /// The step for `facts`. A stop wins over all; a seek comes before the pause (a seek made
    /// while paused lands, and the position shows it) and before the ending (which the seek
    /// suspended); the input's response is applied before the end or a refill is carried out
    /// (a response that is not audio fails the play at once).
    static func next(_ facts: Facts) -> Step {
        if facts.stopRequested { return .stop }
        if let target = facts.pendingSeek, facts.formatKnown { return .seek(to: target) }
        if facts.pausedOnFasterThanRealTimeSink { return .waitWhilePaused }
        if facts.inputInfoWaiting { return .applyInputInfo }
        if facts.ending { return .endTrack }
        if facts.rebuffering { return .refill }
        return .decode
    }
}
