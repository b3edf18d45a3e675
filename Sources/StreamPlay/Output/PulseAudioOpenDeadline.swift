import CPulse

/// How long a sink waits for the sound server while it opens a stream: the connection, the
/// named sink's lookup and the stream's creation. A server that accepts the connection and
/// then never answers would otherwise hold the play until libpulse's own reply timeout (30 s).
///
/// A wait on the threaded mainloop has no timeout of its own, so a timer on the mainloop wakes
/// every waiter at the deadline, and each looks at the clock again. The deadline and the timer
/// are on the same clock, libpulse's monotonic `pa_rtclock_now()`, so a waiter the timer woke
/// always finds the deadline passed. Used by the thread that opens, with the mainloop lock
/// held; ``cancelLocked()`` frees the timer and must be called before the lock is let go for
/// good.
final class PulseAudioOpenDeadline {
    /// The time allowed, for messages.
    let seconds: Double
    /// In microseconds of `pa_rtclock_now()`.
    private let deadline: pa_usec_t
    private let mainloop: OpaquePointer
    /// The mainloop's timer for the deadline, once one was needed.
    private var timer: OpaquePointer?

    /// A deadline `seconds` from now; `seconds` is clamped to between 0 and a day.
    init(seconds: Double, mainloop: OpaquePointer) {
        let allowed = seconds.isNaN ? 0 : min(max(seconds, 0), 86_400)
        self.seconds = allowed
        deadline = pa_rtclock_now() + pa_usec_t(allowed * 1_000_000)
        self.mainloop = mainloop
    }

    deinit {
        assert(timer == nil, "a deadline's timer outlived its wait")
    }

    /// Whether the deadline has passed. If not, makes sure the mainloop is woken at the
    /// deadline (through `context`, whose mainloop the timer uses): call it before each wait.
    func hasPassedLocked(wakingThrough context: OpaquePointer) -> Bool {
        guard pa_rtclock_now() < deadline else { return true }
        if timer == nil {
            timer = pa_context_rttime_new(context, deadline, { _, _, _, mainloop in
                pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
            }, UnsafeMutableRawPointer(mainloop))
        }
        return false
    }

    /// The allowed time as messages show it, to a tenth of a second.
    var description: String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// Frees the timer, if one was made.
    func cancelLocked() {
        guard let timer else { return }
        pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer)
        self.timer = nil
    }
}
