import Synchronization
@testable import StreamPlay

/// A sink that hands everything to another sink and keeps a copy of the audio that sink took.
///
/// What a PulseAudio monitor records is not exactly what the engine wrote where the stream was
/// corked and uncorked: a cork rewinds the sink, and the monitor has already recorded what the
/// rewind takes back (it is recorded again after the uncork), and it may miss a few
/// milliseconds at an uncork. Through a rebuffer, the audio the engine gave the server is
/// therefore held against the reference here, while the real server sets the pace.
final class WrittenAudioTap: ForwardingSink {
    let inner: any AudioSink
    private let written = Mutex<[Int16]>([])

    init(_ inner: any AudioSink) {
        self.inner = inner
    }

    /// The interleaved samples the inner sink took, in order.
    var samples: [Int16] { written.withEngineLock { $0 } }

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
}
