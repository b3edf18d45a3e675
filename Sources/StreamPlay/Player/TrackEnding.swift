/// The end of a track, step by step: once the decoder thread has decoded the last audio it will
/// (the input ended, the decoder finished, or the requested length was reached), what is queued
/// is played out or handed to the next track, and the play ends.
///
/// Part of ``PlaybackStateMachine``, which asks it for each step of the ending
/// (``PlaybackStateMachine/nextEndingStep(_:)``) once it has started output that never started
/// (a track shorter than the prebuffer). It takes the facts and returns the one step to carry
/// out, so that the order (wait out a pause, tell the player the end is near, offer the sink to
/// the next track, drain, then end or fail) is tested with no sink, no thread and no clock. Which inputs end a track, and how, is
/// ``TrackEndPlanner``'s to say; where the play is for the listener is the machine's (its
/// ``PlaybackStateMachine/Phase/draining``).
struct TrackEnding: Sendable, Equatable {
    /// What the decoder thread carries out next.
    enum Step: Sendable, Equatable {
        /// No audio was ever queued, and the sink is not this track's: the play is over now,
        /// ending (``PlaybackStateMachine/Phase/ended``) or failing with the input's failure.
        case finish(PlaybackStateMachine.Phase)
        /// The listener paused a real-time sink: draining a corked stream would wait for the
        /// resume, so the decode loop waits (and takes commands) instead, then asks again.
        case waitForResume
        /// Tell the player, once, that the end is near, so that it readies the next track.
        case reportNearingEnd
        /// Ask the next track to take over the sink without a drain (gapless). If it does, the
        /// play is over; if not, the next step drains.
        case offerHandOff
        /// Play out what the sink holds, then call ``drained()``, or ``drainInterrupted()``
        /// when a command (pause, seek, stop) cut it short.
        case drainSink
    }

    /// What the decoder thread knows at a turn of the ending; whether the listener paused is
    /// the state machine's to say.
    struct Facts: Sendable, Equatable {
        /// The sink was opened for this track's audio. (Output that never started is started
        /// by ``PlaybackStateMachine`` before it asks for a step.)
        var attached: Bool
        /// The sink plays in real time: a file or the null sink does not wait for a resume to
        /// take its audio, so a pause is not waited out on them.
        var sinkIsRealTime: Bool
        /// The audio's format is known.
        var formatKnown: Bool
        /// The player was told the end is near.
        var nearingEndReported: Bool
        /// A next track can be offered the sink.
        var canHandOff: Bool
    }

    /// Whether the track is ending: the decode loop carries out ``next(_:)``'s steps instead of
    /// decoding.
    private(set) var isEnding = false
    /// The input's failure, reported once the audio decoded before it has played.
    private(set) var failure: PlayerError?
    /// Whether the sink was offered to the next track since the drain last began.
    private var handOffOffered = false

    /// The last audio was decoded: play it out, then end, or fail with `failure` (an input that
    /// failed after audio, as a player reports it once what it heard has played). A failure
    /// met before stays: an ending suspended by a seek that did not land ends as it would have.
    mutating func begin(failure: PlayerError? = nil) {
        isEnding = true
        if let failure { self.failure = failure }
        handOffOffered = false
    }

    /// A seek was taken: decoding goes on until it lands (``cancel()``). Should it not land
    /// (the decoder refused it), the input's failure still ends the track once decoding ends.
    mutating func suspend() {
        isEnding = false
        handOffOffered = false
    }

    /// A seek landed: decoding goes on from the new position, and whatever ends it next
    /// decides the ending afresh.
    mutating func cancel() {
        self = TrackEnding()
    }

    /// The step to carry out now, `paused` by the listener or not.
    mutating func next(_ facts: Facts, paused: Bool) -> Step {
        guard facts.attached else { return .finish(finalPhase) }
        if paused, facts.sinkIsRealTime {
            // The next track may be ready by the resume: it is offered the sink again then.
            handOffOffered = false
            return .waitForResume
        }
        // A failing track is drained and reported, never handed on as if it had ended well.
        if failure == nil, facts.formatKnown {
            if !facts.nearingEndReported { return .reportNearingEnd }
            if facts.canHandOff, !handOffOffered {
                handOffOffered = true
                return .offerHandOff
            }
        }
        return .drainSink
    }

    /// The drain was cut short by a command: the next turn begins again, offering the sink to
    /// the next track again, which may be ready by then.
    mutating func drainInterrupted() {
        handOffOffered = false
    }

    /// The sink played everything out: how the play ends.
    func drained() -> PlaybackStateMachine.Phase {
        finalPhase
    }

    private var finalPhase: PlaybackStateMachine.Phase {
        failure.map { .failed($0) } ?? .ended
    }
}
