import Foundation
import Synchronization
@testable import StreamPlay

/// A sink that takes audio no faster than real time and keeps all of it in memory, so a test
/// can act while a track is playing and still compare the output sample for sample.
final class PacedMemorySink: AudioSink, @unchecked Sendable {
    private struct State {
        var samples: [Int16] = []
        var format: AudioFormat?
        var framesAccepted = 0
        var started: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let interrupted = Atomic<Bool>(false)
    /// Seconds the sink runs ahead of real time.
    private let lead: Double

    init(lead: Double = 0.2) {
        self.lead = lead
    }

    var samples: [Int16] { state.withEngineLock { $0.samples } }
    var isRealTime: Bool { false }
    var queueCapacityFrames: Int { .max }
    var latencyFrames: Int { 0 }

    func open(format: AudioFormat) throws(PlayerError) {
        state.withEngineLock { $0.format = format }
    }

    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        while !interrupted.load(ordering: .relaxed) {
            let wait: Double = state.withEngineLock { state in
                guard let format = state.format else { return 0 }
                let start = state.started ?? .now
                state.started = start
                let ahead = format.seconds(forFrames: state.framesAccepted)
                let elapsed = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
                    + Double((ContinuousClock.now - start).components.seconds)
                return ahead - elapsed - lead
            }
            if wait <= 0 { break }
            Thread.sleep(forTimeInterval: min(wait, 0.01))
        }
        if interrupted.load(ordering: .relaxed) { return 0 }
        state.withEngineLock { state in
            state.samples.append(contentsOf: pcm.bindMemory(to: Int16.self))
            state.framesAccepted += pcm.count / (state.format?.bytesPerFrame ?? 4)
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
