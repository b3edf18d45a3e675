/// What an engine thread sleeps on between turns: signalled by the thread's own wake-ups (a
/// command, news of a transfer, room in the buffer) and by a ``PlaybackClock`` whose time has
/// reached the thread's deadline.
///
/// It is public so that a clock other than the real one (StreamPlayTesting's `ManualClock`)
/// can wake the engine's threads when it moves. A signal given while nobody waits is kept for
/// the next wait, so a wake-up that comes just as the thread decides to sleep is never lost;
/// a thread that wakes for no reason looks at its state and sleeps again, so an extra signal
/// is harmless.
public final class WakeUpSignal: Sendable {
    package let event: ThreadSignal

    /// A signal of its own (the engine's threads make theirs).
    public convenience init() {
        self.init(ThreadSignal())
    }

    /// A signal on `event`, which the engine's thread also sleeps on directly.
    package init(_ event: ThreadSignal) {
        self.event = event
    }

    /// Wakes the thread waiting on this signal, or the next one to wait.
    public func signal() {
        event.signal()
    }

    /// Blocks the calling thread until signalled or until `timeout` has passed in real time
    /// (at most a day at a time: a longer wait returns after a day, as a spurious wake-up).
    /// - Returns: `true` when woken by a signal, `false` when the time ran out.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        event.wait(timeout: min(max(timeout.inSeconds, 0), 86_400))
    }
}
