/// The audio a draining stream still holds, counted down by the clock while it plays.
///
/// Once a PulseAudio stream's last audio is written, the latency the server reports stops
/// shrinking at the sink's own part of it: the stream's read index cannot pass its write index,
/// and the timing interpolation stops with it. A position read from that latency would stand
/// still until the drain is acknowledged, then jump to the end. So from the drain's start, what
/// the stream still holds (the latency at the last write, less what played since, as the sink's
/// `startDrainCountdown` reads it) is counted down while the stream plays (not while it is
/// corked), and the sink reports the smaller of that and the server's figure.
struct DrainCountdown: Sendable, Equatable {
    /// Seconds left when the countdown last stopped or started.
    private var seconds: Double
    /// When it last started; `nil` while stopped (the stream corked).
    private var runningSince: ContinuousClock.Instant?

    init(seconds: Double, running: Bool, at now: ContinuousClock.Instant) {
        self.seconds = max(seconds, 0)
        runningSince = running ? now : nil
    }

    /// Starts or stops the count (the stream uncorked or corked).
    mutating func setRunning(_ running: Bool, at now: ContinuousClock.Instant) {
        seconds = remainingSeconds(at: now)
        runningSince = running ? now : nil
    }

    /// Seconds of the stream's audio not played at `now`; 0 at the least.
    func remainingSeconds(at now: ContinuousClock.Instant) -> Double {
        guard let runningSince else { return seconds }
        return max(seconds - (now - runningSince).inSeconds, 0)
    }
}
