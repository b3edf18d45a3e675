import StreamPlay
import Synchronization

/// An `AudioSink` that keeps what it is given, one part per format it was opened with: a format
/// change mid-play shows as a new part. For tests of what a `Player` decoded (give it with
/// `PlayerConfiguration(output: .custom { sink })`).
///
/// By default it takes audio as fast as it comes, so a whole track is decoded in a moment.
/// Paced (``init(pacedAhead:keepingSamples:)``), it takes audio no faster than a listener would
/// hear it, so that a test can act while a track plays (seek, pause, change the queue) and
/// still compare the output sample for sample; without keeping samples, it is a null output
/// that plays in real time, for measuring many players at once.
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

    private struct State {
        var parts: [Part] = []
        /// Seconds of audio taken so far, across parts.
        var secondsTaken = 0.0
        /// When the first audio was taken: the pace's clock starts there.
        var firstWrite: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// Seconds the sink may take ahead of real time, or `nil` for no pace.
    private let lead: Double?
    private let keepsSamples: Bool
    private let interrupted = Atomic<Bool>(false)
    /// Wakes a paced write that waits, when the sink is interrupted.
    private let wakeUp = ThreadSignal()

    /// A sink that takes audio as fast as it comes and keeps it.
    public convenience init() {
        self.init(pacedAhead: nil)
    }

    /// A sink that takes audio at the pace of real time, at most `lead` seconds ahead of a clock
    /// started by the first write.
    /// - Parameters:
    ///   - lead: how far ahead of real time the sink may take audio, in seconds; `nil` for no
    ///     pace at all.
    ///   - keepingSamples: `false` to discard the samples (``parts`` then holds formats only).
    public init(pacedAhead lead: Double?, keepingSamples: Bool = true) {
        self.lead = lead
        keepsSamples = keepingSamples
    }

    /// What was written so far, one part per format.
    public var parts: [Part] { state.withEngineLock { $0.parts } }
    /// All samples written so far, the parts one after the other.
    public var samples: [Int16] { state.withEngineLock { $0.parts.flatMap(\.samples) } }
    /// False, paced or not: the engine's sound-server paths (underrun watch, corking) stay out.
    public var isRealTime: Bool { false }
    /// No limit.
    public var queueCapacityFrames: Int { .max }
    /// Nothing waits to be heard.
    public var latencyFrames: Int { 0 }

    /// Starts a new part unless `format` is the last part's.
    public func open(format: AudioFormat) throws(PlayerError) {
        state.withEngineLock { state in
            if state.parts.last?.format != format { state.parts.append(Part(format: format)) }
        }
    }

    /// Keeps `pcm` in the current part; paced, first waits until real time is within the lead
    /// of what was taken. An interrupt ends the wait, and then nothing is taken.
    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        if let lead {
            while !interrupted.load(ordering: .acquiring) {
                let wait = state.withEngineLock { state in
                    let start = state.firstWrite ?? .now
                    state.firstWrite = start
                    return state.secondsTaken - (ContinuousClock.now - start).inSeconds - lead
                }
                if wait <= 0 { break }
                wakeUp.wait(timeout: wait)
            }
            if interrupted.load(ordering: .acquiring) { return 0 }
        }
        state.withEngineLock { state in
            guard let format = state.parts.last?.format else { return }
            if keepsSamples {
                state.parts[state.parts.count - 1].samples.append(contentsOf: pcm.bindMemory(to: Int16.self))
            }
            state.secondsTaken += format.seconds(forFrames: pcm.count / format.bytesPerFrame)
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
    /// Ends a paced write's wait; writes take nothing until ``clearInterrupt()``.
    public func interrupt() {
        interrupted.store(true, ordering: .releasing)
        wakeUp.signal()
    }
    /// Lets writes take audio again.
    public func clearInterrupt() { interrupted.store(false, ordering: .releasing) }
    /// Volume does not apply to a recording.
    public func setVolume(_ volume: Double) {}
}
