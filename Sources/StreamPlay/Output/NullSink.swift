/// Discards audio as fast as the decoder delivers it.
///
/// For headless use, tests and benchmarks: the decode runs at full speed, and the position
/// counts frames decoded.
public final class NullSink: AudioSink {
    /// Creates a null sink.
    public init() {}
    /// Always `false`: the null sink never waits for real time.
    public var isRealTime: Bool { false }
    /// Accepts any format.
    public func open(format: AudioFormat) throws(PlayerError) {}
    /// Discards `pcm` at once.
    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int { pcm.count }
    /// Nothing to start.
    public func start() {}
    /// Nothing to pause.
    public func pause() {}
    /// Nothing is queued.
    public func flush() {}
    /// Nothing is queued, so nothing to wait for.
    public func drain() throws(PlayerError) -> Bool { true }
    /// Nothing to release.
    public func close() {}
    /// Unbounded: audio is taken as fast as it comes.
    public var queueCapacityFrames: Int { .max }
    /// Nothing ever blocks.
    public func interrupt() {}
    /// Nothing ever blocks.
    public func clearInterrupt() {}
    /// Always 0: discarded audio counts as heard.
    public var latencyFrames: Int { 0 }
    /// Volume has no effect on silence.
    public func setVolume(_ volume: Double) {}
}
