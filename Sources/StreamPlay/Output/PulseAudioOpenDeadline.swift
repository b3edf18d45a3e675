import CPulse

/// How long a sink waits for the sound server while it opens a stream: the connection, the
/// named sink's lookup and the stream's creation. A server that accepts the connection and
/// then never answers would otherwise hold the play in connecting for good.
///
/// A wait on the threaded mainloop has no timeout of its own, so a timer on the mainloop wakes
/// every waiter at the deadline, and each looks at the clock again. Used by the thread that
/// opens, with the mainloop lock held; ``cancelLocked()`` frees the timer and must be called
/// before the lock is let go for good.
final class PulseAudioOpenDeadline {
    /// The time allowed, for messages.
    let seconds: Double
    private let deadline: ContinuousClock.Instant
    private let mainloop: OpaquePointer
    /// The mainloop's timer for the deadline, once one was needed.
    private var timer: OpaquePointer?

    init(seconds: Double, mainloop: OpaquePointer) {
        self.seconds = seconds
        deadline = .now + .seconds(seconds)
        self.mainloop = mainloop
    }

    /// Whether the deadline has passed. If not, makes sure the mainloop is woken at the
    /// deadline (through `context`, whose clock the timer uses): call it before each wait.
    func hasPassedLocked(wakingThrough context: OpaquePointer) -> Bool {
        let left = deadline - .now
        guard left > .zero else { return true }
        if timer == nil {
            let microseconds = pa_usec_t(max(left.inSeconds, 0) * 1_000_000) + 1
            timer = pa_context_rttime_new(context, pa_rtclock_now() + microseconds, { _, _, _, mainloop in
                pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
            }, UnsafeMutableRawPointer(mainloop))
        }
        return false
    }

    /// Frees the timer, if one was made.
    func cancelLocked() {
        guard let timer else { return }
        pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer)
        self.timer = nil
    }
}
