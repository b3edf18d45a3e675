import Synchronization

/// Where a play is in its track: the frame the audio written since the last rebase started at,
/// and the frames written since. The decoder thread writes it; any thread reads the position.
///
/// The position is what was written less what the sink still holds (its latency), so it runs
/// with what is heard, not with what is decoded; once the sink has played everything out, it
/// is all that was written.
final class PlaybackTimeline: Sendable {
    private let sampleRate = Atomic<Int>(0)
    private let baseFrame = Atomic<Int>(0)
    private let framesWritten = Atomic<Int>(0)
    private let drained = Atomic<Bool>(false)

    // MARK: The decoder thread

    /// The sink took (or retook, after a stream in another format) audio at `sampleRate`.
    func opened(sampleRate: Int) {
        self.sampleRate.store(sampleRate, ordering: .releasing)
    }

    /// The audio written from now on starts at `frame` of the track (a seek landed, a new
    /// stream's first audio, or another rate: `frame` counts at the rate last opened).
    func rebase(at frame: Int) {
        baseFrame.store(frame, ordering: .releasing)
        framesWritten.store(0, ordering: .releasing)
    }

    /// The sink took `frames` more.
    func wrote(frames: Int) {
        framesWritten.add(frames, ordering: .releasing)
    }

    /// The sink played everything written.
    func markDrained() {
        drained.store(true, ordering: .releasing)
    }

    /// The frame of the track the next written audio stands for.
    var nextFrame: Int {
        baseFrame.load(ordering: .acquiring) + framesWritten.load(ordering: .acquiring)
    }

    /// Whether any audio was written since the last rebase.
    var hasWritten: Bool { framesWritten.load(ordering: .acquiring) > 0 }

    /// Whether the sink has taken audio (its rate is known).
    var isOpen: Bool { sampleRate.load(ordering: .acquiring) > 0 }

    // MARK: Any thread

    /// Seconds heard so far: frames written less `latency()`, the frames the sink still holds;
    /// `nil` before the sink took audio.
    ///
    /// The sink's latency leaves out what it took of a write still under way, which is not
    /// counted yet (see ``AudioSink/latencyFrames``). The count is read again after the latency,
    /// and both again if a write was counted in between (the latency may have been read after
    /// that write returned). Only a read in the instant between a write's return and its count
    /// is a write's frames behind.
    func position(latency: () -> Int) -> Double? {
        let rate = sampleRate.load(ordering: .acquiring)
        guard rate > 0 else { return nil }
        let base = baseFrame.load(ordering: .acquiring)
        var written = framesWritten.load(ordering: .acquiring)
        var held = 0
        for _ in 0..<4 {
            held = latency()
            let after = framesWritten.load(ordering: .acquiring)
            if after == written { break }
            written = after
        }
        let heard = drained.load(ordering: .acquiring) ? written : max(written - held, 0)
        return Double(base + heard) / Double(rate)
    }

    /// Seconds of earlier audio a sink holding `latency()` frames plays before this play's
    /// first frame (the tail of the track that handed the sink over); 0 once this play's audio
    /// is heard, `nil` before the sink took audio.
    func secondsBeforeFirstAudio(latency: () -> Int) -> Double? {
        let rate = sampleRate.load(ordering: .acquiring)
        guard rate > 0 else { return nil }
        return Double(max(latency() - framesWritten.load(ordering: .acquiring), 0)) / Double(rate)
    }

    /// Seconds into the track where the audio written ends; `nil` before the sink took audio.
    var writtenEnd: Double? {
        let rate = sampleRate.load(ordering: .acquiring)
        guard rate > 0 else { return nil }
        return Double(nextFrame) / Double(rate)
    }
}
