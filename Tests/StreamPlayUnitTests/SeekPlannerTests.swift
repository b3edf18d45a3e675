import Testing
@testable import StreamPlay

@Suite("Seek planning")
struct SeekPlannerTests {
    @Test("a byte already in the ring, or coming on a transfer that cannot seek, is read forward to")
    func skip() {
        #expect(SeekPlanner.bytePlan(offset: 5000, inputPosition: 4000, buffered: 2000, supportsRanges: true,
                                     inputFinished: false) == .skip(to: 5000))
        #expect(SeekPlanner.bytePlan(offset: 90_000, inputPosition: 4000, buffered: 2000, supportsRanges: false,
                                     inputFinished: false) == .skip(to: 90_000))
    }

    @Test("a byte out of reach is asked for by Range when the server takes ranges")
    func rangeRestart() {
        #expect(SeekPlanner.bytePlan(offset: 90_000, inputPosition: 4000, buffered: 2000, supportsRanges: true,
                                     inputFinished: false) == .restart(at: 90_000))
        #expect(SeekPlanner.bytePlan(offset: 100, inputPosition: 4000, buffered: 2000, supportsRanges: true,
                                     inputFinished: true) == .restart(at: 100))
    }

    @Test("behind, or past a finished transfer, without ranges: read again from the start")
    func fromStart() {
        #expect(SeekPlanner.bytePlan(offset: 100, inputPosition: 4000, buffered: 0, supportsRanges: false,
                                     inputFinished: false) == .restartFromStart(skipTo: 100))
        #expect(SeekPlanner.bytePlan(offset: 90_000, inputPosition: 4000, buffered: 0, supportsRanges: false,
                                     inputFinished: true) == .restartFromStart(skipTo: 90_000))
    }

    static func playlist(_ durations: [Double], discontinuityAt: Int? = nil) -> HLSMediaPlaylist {
        let segments = durations.enumerated().map { index, duration in
            HLSSegment(sequence: index, url: "https://cdn.example/s\(index).mp3", duration: duration,
                       byteRange: nil, key: nil, discontinuity: index == discontinuityAt, initializationMap: nil)
        }
        return HLSMediaPlaylist(targetDuration: 4, mediaSequence: 0, segments: segments, hasEndList: true, playlistType: nil)
    }

    static let format = AudioFormat(sampleRate: 44100, channels: 2)

    @Test("a segment seek starts at the segment holding the target and drops audio before it")
    func segment() {
        let plan = SeekPlanner.segmentPlan(in: Self.playlist([4, 4, 4]), to: 6, format: Self.format, samplesPerFrame: 1152)
        #expect(plan.segmentIndex == 1)
        #expect(plan.startFrame == 176_256)   // 4 s, snapped to a whole number of 1152-sample frames
        #expect(plan.targetFrame == 264_600)
    }

    @Test("a target at a segment's very start reads from the segment before, unless a discontinuity parts them")
    func leadIn() {
        let plan = SeekPlanner.segmentPlan(in: Self.playlist([4, 4, 4]), to: 8.05, format: Self.format, samplesPerFrame: nil)
        #expect(plan.segmentIndex == 1)
        #expect(plan.startFrame == 176_400)
        let parted = SeekPlanner.segmentPlan(in: Self.playlist([4, 4, 4], discontinuityAt: 2), to: 8.05,
                                             format: Self.format, samplesPerFrame: nil)
        #expect(parted.segmentIndex == 2)
    }

    @Test("targets beyond either end are clamped into the playlist")
    func clamped() {
        let late = SeekPlanner.segmentPlan(in: Self.playlist([4, 4]), to: 99, format: Self.format, samplesPerFrame: nil)
        #expect(late.segmentIndex == 1)
        #expect(late.targetFrame < 8 * 44100)
        let early = SeekPlanner.segmentPlan(in: Self.playlist([4, 4]), to: -3, format: Self.format, samplesPerFrame: nil)
        #expect(early == SeekPlanner.SegmentPlan(segmentIndex: 0, startFrame: 0, targetFrame: 0))
    }

    @Test("after a segment seek, chunks before the target are dropped, the one holding it is cut at it, later ones are whole")
    func heardPart() {
        let stereo = 4
        // Frames 0..<1152 and a target at 2000: nothing heard.
        #expect(SeekPlanner.heardPart(ofChunkAt: 0, byteCount: 1152 * stereo, bytesPerFrame: stereo, targetFrame: 2000) == .dropped)
        // Frames 1152..<2304: heard from frame 2000, 848 frames in.
        #expect(SeekPlanner.heardPart(ofChunkAt: 1152, byteCount: 1152 * stereo, bytesPerFrame: stereo, targetFrame: 2000)
                == .from(byte: 848 * stereo, frame: 2000))
        // Ending exactly at the target: nothing of it is heard; starting exactly there: all.
        #expect(SeekPlanner.heardPart(ofChunkAt: 848, byteCount: 1152 * stereo, bytesPerFrame: stereo, targetFrame: 2000) == .dropped)
        #expect(SeekPlanner.heardPart(ofChunkAt: 2000, byteCount: 1152 * stereo, bytesPerFrame: stereo, targetFrame: 2000)
                == .from(byte: 0, frame: 2000))
        // A decoder that landed past the target: heard whole, from where it is.
        #expect(SeekPlanner.heardPart(ofChunkAt: 3000, byteCount: 1152 * stereo, bytesPerFrame: stereo, targetFrame: 2000)
                == .from(byte: 0, frame: 3000))
        // Mono counts frames of two bytes.
        #expect(SeekPlanner.heardPart(ofChunkAt: 0, byteCount: 1152 * 2, bytesPerFrame: 2, targetFrame: 100)
                == .from(byte: 200, frame: 100))
    }
}
