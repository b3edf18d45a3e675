/// The time by which the engine's input decides when to give up and when to try again: when a
/// stalled transfer counts as dropped, when a reconnect's backoff or a server's Retry-After is
/// over, when a live HLS playlist is due for a reload, and how long a URL refresher is waited
/// for.
///
/// A ``Player`` reads the clock of its ``PlayerConfiguration/clock``: the real monotonic clock
/// (``MonotonicPlaybackClock``) unless a test gives another. StreamPlayTesting's `ManualClock`
/// moves only when the test advances it, so "the link stalls for 20 s" or "503 with
/// Retry-After: 5" plays out in milliseconds, through the engine's real threads and decisions.
///
/// The engine's input runs on a dedicated thread, not in a task: it blocks in
/// ``sleep(until:wakeUp:)``, which a clock implements by blocking the calling thread (never by
/// suspending, and never on Swift's cooperative pool).
public protocol PlaybackClock: Sendable {
    /// The time now, as the time elapsed since the clock's origin. It never goes back.
    var now: Duration { get }

    /// Blocks the calling thread until this clock reaches `deadline`, or until `wakeUp` is
    /// signalled (the thread's own wake-ups: a command, news of a transfer, room in the
    /// buffer), whichever comes first.
    ///
    /// It must block: an early return now and then is harmless (the engine reads ``now`` again
    /// after every wake-up and sleeps again when its deadline has not come), but a clock that
    /// returns at once every time would keep the input thread spinning.
    func sleep(until deadline: Duration, wakeUp: WakeUpSignal)
}

/// The real clock: monotonic time (Swift's `ContinuousClock`), and waits that take that long.
/// The default of ``PlayerConfiguration/clock``.
public struct MonotonicPlaybackClock: PlaybackClock {
    /// The origin of every instance's ``now``: the first time one is read in the process.
    private static let origin = ContinuousClock.now

    /// The real clock (all instances tell the same time).
    public init() {}

    /// The time since the process first read this clock.
    public var now: Duration {
        let origin = Self.origin
        return origin.duration(to: .now)
    }

    /// Sleeps for the time left until `deadline`, unless `wakeUp` is signalled first.
    public func sleep(until deadline: Duration, wakeUp: WakeUpSignal) {
        let remaining = deadline - now
        guard remaining > .zero else { return }
        wakeUp.wait(timeout: remaining)
    }
}

extension PlaybackClock where Self == MonotonicPlaybackClock {
    /// The real monotonic clock, as in `configuration.clock = .monotonic`.
    public static var monotonic: MonotonicPlaybackClock { MonotonicPlaybackClock() }
}
