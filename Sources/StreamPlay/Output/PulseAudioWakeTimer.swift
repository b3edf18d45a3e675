import CPulse

/// A timer on a sink's mainloop that wakes the threads waiting on it at a given time. A wait on
/// the threaded mainloop has no timeout of its own: a waiter that must give up at some time
/// asks this timer to wake it then, and looks at the clock again when woken.
///
/// Times are in microseconds of libpulse's monotonic `pa_rtclock_now()`, the timer's clock.
/// Used with the mainloop lock held, by one waiting thread at a time; ``cancelLocked()`` frees
/// the timer, and must be called before this object goes. A timer left set between waits
/// only wakes the mainloop's waiters once more, who look at their state again.
final class PulseAudioWakeTimer {
    private let mainloop: OpaquePointer
    /// The timer, once one was needed, and when it is due.
    private var timer: OpaquePointer?
    private var timerDue: pa_usec_t = 0

    /// A timer on `mainloop`; none is made until ``wakeLocked(at:through:)`` needs one.
    init(mainloop: OpaquePointer) {
        self.mainloop = mainloop
    }

    deinit {
        assert(timer == nil, "a wake timer outlived its user")
    }

    /// Makes sure the mainloop's waiters are woken at `due`, through `context` (whose mainloop
    /// the timer uses). A timer already set is moved later only once it fired, or is about to:
    /// a waiter woken early for another reason does not rearm it on every wake-up. It is moved
    /// earlier at once.
    func wakeLocked(at due: pa_usec_t, through context: OpaquePointer) {
        guard let timer else {
            timer = pa_context_rttime_new(context, due, { _, _, _, mainloop in
                pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
            }, UnsafeMutableRawPointer(mainloop))
            timerDue = due
            return
        }
        if due < timerDue || (pa_rtclock_now() >= timerDue && due != timerDue) {
            pa_context_rttime_restart(context, timer, due)
            timerDue = due
        }
    }

    /// Frees the timer, if one was made.
    func cancelLocked() {
        guard let timer else { return }
        pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer)
        self.timer = nil
    }
}
