import StreamPlay
import Synchronization

/// An `AudioSink` that takes audio as fast as it comes and keeps it, one part per format it
/// was opened with: a format change mid-play shows as a new part. For tests of what a `Player`
/// decoded (give it with `PlayerConfiguration(output: .custom { sink })`).
///
/// It expects 16-bit samples, as the engine's decoder writes them.
public final class RecordingSink: AudioSink {
    /// The audio of one format, in the order it was written.
    public struct Part: Sendable, Equatable {
        /// The format the sink was opened with.
        public var format: AudioFormat
        /// The interleaved samples written in that format.
        public var samples: [Int16] = []

        /// A part of `format` with `samples`.
        public init(format: AudioFormat, samples: [Int16] = []) {
            self.format = format
            self.samples = samples
        }
    }

    private let state = Mutex<[Part]>([])

    /// An empty sink.
    public init() {}

    /// What was written so far, one part per format.
    public var parts: [Part] { state.withEngineLock { $0 } }
    /// False: the sink takes audio as fast as it comes.
    public var isRealTime: Bool { false }
    /// No limit.
    public var queueCapacityFrames: Int { .max }
    /// Nothing waits to be heard.
    public var latencyFrames: Int { 0 }

    /// Starts a new part unless `format` is the last part's.
    public func open(format: AudioFormat) throws(PlayerError) {
        state.withEngineLock { parts in
            if parts.last?.format != format { parts.append(Part(format: format)) }
        }
    }

    /// Keeps `pcm` in the current part.
    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        state.withEngineLock { parts in
            parts[parts.count - 1].samples.append(contentsOf: pcm.bindMemory(to: Int16.self))
        }
        return pcm.count
    }

    /// Nothing to start.
    public func start() {}
    /// Nothing to pause.
    public func pause() {}
    /// Nothing to drop: what was written is kept.
    public func flush() {}
    /// Everything written is already "heard".
    public func drain() throws(PlayerError) -> Bool { true }
    /// Nothing to release; the parts are kept.
    public func close() {}
    /// Nothing blocks.
    public func interrupt() {}
    /// Nothing blocks.
    public func clearInterrupt() {}
    /// Volume does not apply to a recording.
    public func setVolume(_ volume: Double) {}
}
