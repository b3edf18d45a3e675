import Synchronization
@testable import StreamPlay

/// A sink that hands everything to another sink and keeps a copy of the audio that sink took.
///
/// What a PulseAudio monitor records is not exactly what the engine wrote where the stream was
/// corked and uncorked: a cork rewinds the sink, and the monitor has already recorded what the
/// rewind takes back (it is recorded again after the uncork), and it may miss a few
/// milliseconds at an uncork. Through a rebuffer, the audio the engine gave the server is
/// therefore held against the reference here, while the real server sets the pace.
final class WrittenAudioTap: AudioSink {
    private let inner: any AudioSink
    private let written = Mutex<[Int16]>([])

    init(_ inner: any AudioSink) {
        self.inner = inner
    }

    /// The interleaved samples the inner sink took, in order.
    var samples: [Int16] { written.withEngineLock { $0 } }

    var isRealTime: Bool { inner.isRealTime }
    var queueCapacityFrames: Int { inner.queueCapacityFrames }
    var latencyFrames: Int { inner.latencyFrames }
    var underflowCount: Int { inner.underflowCount }

    func open(format: AudioFormat) throws(PlayerError) { try inner.open(format: format) }

    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        let taken = try inner.write(pcm)
        // Copied byte for byte: the engine's buffer is not rebound to another type.
        let samples = [Int16](unsafeUninitializedCapacity: taken / 2) { buffer, count in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: pcm[0..<(taken / 2 * 2)]))
            count = taken / 2
        }
        written.withEngineLock { $0.append(contentsOf: samples) }
        return taken
    }

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
