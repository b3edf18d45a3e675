import Testing
@testable import StreamPlay

/// A stream stalls when the allowed time passes with no progress: no write the server had room
/// for, no move of its read index, no uncork. Times in microseconds.
@Suite("Sound server stall watch")
struct PulseAudioStallWatchTests {
    @Test("with no progress, the stream stalls the allowed time after the clock started, not before")
    func stallsAfterTheAllowedTime() {
        let watch = PulseAudioStallWatch(seconds: 5, now: 1_000_000)
        #expect(watch.due == 6_000_000)
        #expect(!watch.hasStalled(at: 5_999_999))
        #expect(watch.hasStalled(at: 6_000_000))
    }

    @Test("a write or an uncork moves the deadline on")
    func progressMovesItOn() {
        var watch = PulseAudioStallWatch(seconds: 5, now: 0)
        watch.noteProgress(at: 4_000_000)
        #expect(!watch.hasStalled(at: 8_000_000))
        #expect(watch.hasStalled(at: 9_000_000))
    }

    @Test("a read index that moves is progress and audio read; one that stays is neither")
    func readIndex() {
        var watch = PulseAudioStallWatch(seconds: 5, now: 0)
        // A new stream's first update: nothing read yet is no progress.
        let read1 = watch.observe(readIndex: 0, writeIndex: 1_000_000, at: 1_000_000)
        #expect(!read1)
        #expect(watch.due == 5_000_000)
        let read2 = watch.observe(readIndex: 4_410, writeIndex: 1_000_000, at: 2_000_000)
        #expect(read2)
        #expect(watch.due == 7_000_000)
        // The same index in later updates: the server took nothing more.
        let read3 = watch.observe(readIndex: 4_410, writeIndex: 1_000_000, at: 6_000_000)
        #expect(!read3)
        #expect(watch.hasStalled(at: 7_000_000))
    }

    @Test("a new stream forgets the old one's read index; a first update past zero is audio read")
    func restartForgetsTheIndex() {
        var watch = PulseAudioStallWatch(seconds: 5, now: 0)
        let read4 = watch.observe(readIndex: 8_820, writeIndex: 1_000_000, at: 1_000_000)
        #expect(read4)
        watch.restart(at: 10_000_000)
        #expect(watch.due == 15_000_000)
        // The new stream's index is compared with nothing: 8 820 again is its own audio read.
        let read5 = watch.observe(readIndex: 8_820, writeIndex: 1_000_000, at: 11_000_000)
        #expect(read5)
        #expect(watch.due == 16_000_000)
    }

    @Test("a read index that goes back is progress but not audio read")
    func indexGoingBack() {
        var watch = PulseAudioStallWatch(seconds: 5, now: 0)
        _ = watch.observe(readIndex: 8_820, writeIndex: 1_000_000, at: 1_000_000)
        let read6 = watch.observe(readIndex: 0, writeIndex: 1_000_000, at: 3_000_000)
        #expect(!read6)
        #expect(watch.due == 8_000_000)
    }

    @Test("a read index past the write index moves nothing: time counted, no audio taken")
    func readIndexPastTheWriteIndex() {
        var watch = PulseAudioStallWatch(seconds: 5, now: 0)
        // PipeWire's stream never linked: the prebuffer written (8 820 bytes), none asked for
        // since, and a read index that runs on past it.
        let first = watch.observe(readIndex: 9_000, writeIndex: 8_820, at: 1_000_000)
        #expect(first, "a first look at 8 820 read")
        let later = watch.observe(readIndex: 40_000, writeIndex: 8_820, at: 3_000_000)
        #expect(!later)
        #expect(watch.hasStalled(at: 6_000_000))
        // Audio written and read again is progress.
        let after = watch.observe(readIndex: 50_000, writeIndex: 17_640, at: 6_500_000)
        #expect(after)
        #expect(watch.due == 11_500_000)
    }

    @Test("the allowed time is at least a tenth of a second; NaN is the default 5 s")
    func clamping() {
        #expect(PulseAudioStallWatch(seconds: 0, now: 0).allowed == 100_000)
        #expect(PulseAudioStallWatch(seconds: -3, now: 0).allowed == 100_000)
        #expect(PulseAudioStallWatch(seconds: .nan, now: 0).allowed == 5_000_000)
        #expect(PulseAudioStallWatch(seconds: .infinity, now: 0).allowed == 86_400_000_000)
    }
}
