import Glibc

/// Seconds on CLOCK_MONOTONIC: the one clock every measurement of the harness uses.
enum MonotonicClock {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    /// Sleeps the calling thread (the harness runs on plain threads, never on the Swift pool).
    static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        usleep(UInt32(min(seconds, 4000) * 1_000_000))
    }
}
