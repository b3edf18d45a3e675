import StreamPlay
import Synchronization

/// An output that discards audio, but no faster than real time: the scale scenario's null
/// output. The library's own `.null` takes audio as fast as it is decoded, which would measure
/// decoding flat out, not N players each playing at the pace a listener hears. This sink lets
/// the decoder run at most `lead` seconds ahead of a clock started by the first write, as the
/// tests' paced sink does, and keeps nothing. Like `.null` it reports itself as not real-time,
/// so the engine's sound-server paths (underrun watch, corking) stay out of the figures.
final class PacedNullSink: AudioSink {
    /// The pace: what was written against the clock of the first write.
    private struct Pace {
        var format: AudioFormat?
        var framesAccepted = 0
        var started: Double?
    }

    private let pace = Mutex(Pace())
    private let interrupted = Atomic<Bool>(false)
    /// Seconds the sink may run ahead of real time.
    private let lead: Double

    init(lead: Double = 0.2) {
        self.lead = lead
    }

    var isRealTime: Bool { false }
    var queueCapacityFrames: Int { .max }
    var latencyFrames: Int { 0 }

    func open(format: AudioFormat) throws(PlayerError) {
        pace.withEngineLock { $0.format = format }
    }

    /// Waits until the clock has caught up to within `lead` of what was accepted, then takes
    /// `pcm` whole. The wait is slept in one piece, at most 50 ms, so an interrupt is seen soon.
    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        while !interrupted.load(ordering: .relaxed) {
            let wait: Double = pace.withEngineLock { pace in
                guard let format = pace.format else { return 0 }
                let now = MonotonicClock.now()
                let start = pace.started ?? now
                pace.started = start
                return format.seconds(forFrames: pace.framesAccepted) - (now - start) - lead
            }
            if wait <= 0 { break }
            MonotonicClock.sleep(min(wait, 0.05))
        }
        if interrupted.load(ordering: .relaxed) { return 0 }
        pace.withEngineLock { pace in
            pace.framesAccepted += pcm.count / (pace.format?.bytesPerFrame ?? 4)
        }
        return pcm.count
    }

    func start() {}
    func pause() {}
    func flush() {}
    func drain() throws(PlayerError) -> Bool { true }
    func close() {}
    func interrupt() { interrupted.store(true, ordering: .relaxed) }
    func clearInterrupt() { interrupted.store(false, ordering: .relaxed) }
    func setVolume(_ volume: Double) {}
}
