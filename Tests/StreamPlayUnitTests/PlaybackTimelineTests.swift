import Testing
@testable import StreamPlay

@Suite("Playback timeline (the position from what was written and what the sink holds)")
struct PlaybackTimelineTests {
    /// A timeline at `sampleRate` with `written` frames written from frame `base`.
    static func timeline(sampleRate: Int = 1000, base: Int = 0, written: Int) -> PlaybackTimeline {
        let timeline = PlaybackTimeline()
        timeline.opened(sampleRate: sampleRate)
        timeline.rebase(at: base)
        timeline.wrote(frames: written)
        return timeline
    }

    @Test("before the sink takes audio there is no position; after, what was written less what the sink holds")
    func position() {
        let unopened = PlaybackTimeline()
        #expect(unopened.position { 0 } == nil)
        #expect(unopened.writtenEnd == nil)
        let timeline = Self.timeline(base: 5000, written: 1500)
        #expect(timeline.position { 500 } == 6.0)
        #expect(timeline.position { 4000 } == 5.0, "the sink cannot hold more than was written")
        #expect(timeline.writtenEnd == 6.5)
        #expect(timeline.nextFrame == 6500)
        timeline.markDrained()
        #expect(timeline.position { 500 } == 6.5, "drained: everything written was heard")
    }

    @Test("a write counted while the latency is read is read again with it")
    func writeDuringRead() {
        let timeline = Self.timeline(written: 1000)
        var reads = 0
        // The first read of the latency comes after a write of 200 frames the sink already
        // counts: taken with the count before it, the position would run 0.2 s ahead.
        let position = timeline.position {
            reads += 1
            if reads == 1 { timeline.wrote(frames: 200) }
            return 700
        }
        #expect(reads == 2)
        #expect(position == 0.5)
    }

    @Test("a rebase starts the count anew at its frame; another rate counts from the frame it gives")
    func rebase() {
        let timeline = Self.timeline(sampleRate: 44_100, written: 44_100)
        #expect(timeline.hasWritten)
        timeline.opened(sampleRate: 48_000)
        timeline.rebase(at: 48_000)
        #expect(!timeline.hasWritten)
        #expect(timeline.position { 0 } == 1.0)
    }

    @Test("the tail ahead of a play's first frame shrinks as the sink plays into its audio")
    func tailBeforeFirstAudio() {
        #expect(PlaybackTimeline().secondsBeforeFirstAudio { 0 } == nil)
        let timeline = Self.timeline(written: 300)
        #expect(timeline.secondsBeforeFirstAudio { 800 } == 0.5)
        #expect(timeline.secondsBeforeFirstAudio { 250 } == 0, "its own audio is heard")
    }
}
