import Synchronization
@testable import StreamPlay

/// A sink that takes audio as fast as it comes and keeps it, one part per format it was opened
/// with: a format change mid-play shows as a new part.
final class RecordingSink: AudioSink, @unchecked Sendable {
    struct Part: Equatable {
        var format: AudioFormat
        var samples: [Int16] = []
    }

    private let state = Mutex<[Part]>([])

    var parts: [Part] { state.withEngineLock { $0 } }
    var isRealTime: Bool { false }
    var queueCapacityFrames: Int { .max }
    var latencyFrames: Int { 0 }

    func open(format: AudioFormat) throws(PlayerError) {
        state.withEngineLock { parts in
            if parts.last?.format != format { parts.append(Part(format: format)) }
        }
    }

    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        state.withEngineLock { parts in
            parts[parts.count - 1].samples.append(contentsOf: pcm.bindMemory(to: Int16.self))
        }
        return pcm.count
    }

    func start() {}
    func pause() {}
    func flush() {}
    func drain() throws(PlayerError) -> Bool { true }
    func close() {}
    func interrupt() {}
    func clearInterrupt() {}
    func setVolume(_ volume: Double) {}
}
