import CPulse

/// How long a sink waits for a silent sound server while it opens a stream: the connection, the
/// named sink's lookup and the stream's creation. A server that accepts the connection and
/// then never answers would otherwise hold the play until libpulse's own reply timeout (30 s).
///
/// The wait ends once the server has said nothing on the connection for the allowed time:
/// since the open began, or since its last answer to any sink of the process, whichever is
/// later. A server that is busy, not silent (many streams opening at once on a loaded
/// machine, each waiting for the session manager to link it), goes on answering the other
/// streams' timing updates, and the open waits on; libpulse's reply timeout still bounds the
/// wait for any one answer.
///
/// A ``PulseAudioWakeTimer`` wakes every waiter when the silence would reach the allowed time,
/// and each looks at the clock again; a waiter that finds the server answered since moves the
/// timer on. The times and the timer are on the same clock, so a waiter the timer woke with no
/// answer since always finds the time passed. Used by the thread that opens, with the mainloop
/// lock held; ``cancelLocked()`` frees the timer and must be called before the lock is let go
/// for good.
final class PulseAudioOpenDeadline {
    /// The silence allowed, for messages.
    let seconds: Double
    /// In microseconds.
    private let allowed: pa_usec_t
    /// When the open began, in microseconds of `pa_rtclock_now()`.
    private let openedAt: pa_usec_t
    /// When the open ends however the server answers, if it must (a reconnect's last moment).
    private let notAfter: pa_usec_t?
    private let connection: PulseAudioConnection
    private let timer: PulseAudioWakeTimer

    /// A deadline for `seconds` of silence from now on `connection`, and at most `atMost`
    /// seconds in all when given; both are clamped to between 0 and a day.
    init(seconds: Double, atMost: Double? = nil, connection: PulseAudioConnection) {
        func clamp(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, 0), 86_400) }
        let clamped = clamp(seconds)
        self.seconds = clamped
        allowed = pa_usec_t(clamped * 1_000_000)
        let now = pa_rtclock_now()
        openedAt = now
        notAfter = atMost.map { now + pa_usec_t(clamp($0) * 1_000_000) }
        self.connection = connection
        timer = PulseAudioWakeTimer(mainloop: connection.mainloop)
    }

    /// When a server silent since `openedAt` and `lastAnswer` has been silent for `allowed`.
    static func due(openedAt: pa_usec_t, lastAnswer: pa_usec_t, allowed: pa_usec_t) -> pa_usec_t {
        max(openedAt, lastAnswer) + allowed
    }

    /// Whether the server has been silent for the allowed time. If not, makes sure the
    /// mainloop is woken when it would have been (through `context`, whose mainloop the timer
    /// uses): call it before each wait.
    func hasPassedLocked(wakingThrough context: OpaquePointer) -> Bool {
        let silenceDue = Self.due(openedAt: openedAt, lastAnswer: connection.lastAnswerLocked, allowed: allowed)
        let due = min(silenceDue, notAfter ?? silenceDue)
        let now = pa_rtclock_now()
        guard now < due else { return true }
        timer.wakeLocked(at: due, through: context)
        return false
    }

    /// The allowed time as messages show it, to a tenth of a second.
    var description: String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// Frees the timer, if one was made.
    func cancelLocked() {
        timer.cancelLocked()
    }
}
