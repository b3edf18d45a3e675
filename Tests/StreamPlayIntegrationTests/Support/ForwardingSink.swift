@testable import StreamPlay

/// A test sink that hands every call to another sink, ``inner``; the conforming type implements
/// only the calls it watches (``SinkCallLog``, ``WrittenAudioTap``).
protocol ForwardingSink: AudioSink {
    /// The sink that does the work.
    var inner: any AudioSink { get }
}

extension ForwardingSink {
    var isRealTime: Bool { inner.isRealTime }
    var queueCapacityFrames: Int { inner.queueCapacityFrames }
    var latencyFrames: Int { inner.latencyFrames }
    var underflowCount: Int { inner.underflowCount }

    func open(format: AudioFormat) throws(PlayerError) { try inner.open(format: format) }
    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int { try inner.write(pcm) }
    func start() { inner.start() }
    func pause() { inner.pause() }
    func flush() { inner.flush() }
    func drain() throws(PlayerError) -> Bool { try inner.drain() }
    func close() { inner.close() }
    func interrupt() { inner.interrupt() }
    func clearInterrupt() { inner.clearInterrupt() }
    func setVolume(_ volume: Double) { inner.setVolume(volume) }
    func beginNewTrack() { inner.beginNewTrack() }
    func prepare() { inner.prepare() }
}
