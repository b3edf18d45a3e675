/// Where the input goes for a seek: pure decisions from what the decoder, the ring and the
/// input know, tested without any of them.
enum SeekPlanner {
    /// How the input reaches the byte a byte seek needs.
    enum BytePlan: Equatable, Sendable {
        /// Read on and drop bytes up to `offset`: they are in the ring already, or will come
        /// soon from a transfer that cannot seek.
        case skip(to: Int)
        /// A new request (a Range) from `offset`.
        case restart(at: Int)
        /// The bytes are behind and the input cannot seek: read again from the start, dropping
        /// bytes up to `offset`.
        case restartFromStart(skipTo: Int)
    }

    /// The plan to feed the decoder from `offset`.
    /// - Parameters:
    ///   - inputPosition: the offset of the next byte in the ring.
    ///   - buffered: bytes in the ring from there.
    ///   - supportsRanges: whether the input can restart at any byte.
    ///   - inputFinished: whether the current transfer has ended.
    static func bytePlan(offset: Int, inputPosition: Int, buffered: Int, supportsRanges: Bool,
                         inputFinished: Bool) -> BytePlan {
        if offset >= inputPosition && offset <= inputPosition + buffered { return .skip(to: offset) }
        if supportsRanges { return .restart(at: offset) }
        if offset > inputPosition && !inputFinished { return .skip(to: offset) }
        return .restartFromStart(skipTo: offset)
    }

    /// Where a seek in a segmented (HLS) stream starts reading, and from which frame its audio
    /// is heard.
    struct SegmentPlan: Equatable, Sendable {
        var segmentIndex: Int
        /// The frame the segment's first audio stands for.
        var startFrame: Int
        /// Audio before this frame is decoded and dropped.
        var targetFrame: Int
    }

    /// Seconds of a segment seek decoded before the target, at least: the bit reservoir of
    /// Layer III reaches back at most 511 bytes, well within this.
    static let segmentLeadIn = 0.1

    /// Reads from the start of the segment that holds `target`, or of the one before when the
    /// target is at a segment's very start (an MPEG frame may borrow bits from the frames
    /// before it, which a discontinuity rules out), decodes from there and drops audio up to
    /// the target.
    /// - Parameter samplesPerFrame: the codec's frame size, when known: playlist durations are
    ///   rounded, and segments hold whole codec frames, so a segment's start snaps to one.
    static func segmentPlan(in playlist: HLSMediaPlaylist, to target: Double, format: AudioFormat,
                            samplesPerFrame: Int?) -> SegmentPlan {
        let clamped = min(max(target, 0), max(playlist.totalDuration - 0.001, 0))
        var (index, start) = playlist.segmentIndex(at: clamped)
        if index > 0, clamped - start < segmentLeadIn, !playlist.segments[index].discontinuity {
            index -= 1
            start = playlist.startTime(ofSegment: index)
        }
        let exact = start * Double(format.sampleRate)
        let startFrame = if let samplesPerFrame, samplesPerFrame > 0 {
            Int((exact / Double(samplesPerFrame)).rounded()) * samplesPerFrame
        } else {
            Int(exact.rounded())
        }
        let targetFrame = max(format.frames(forSeconds: clamped), startFrame)
        return SegmentPlan(segmentIndex: index, startFrame: startFrame, targetFrame: targetFrame)
    }

    /// What is heard of a chunk decoded after a segment seek, which decodes from the segment's
    /// start and drops audio before its ``SegmentPlan/targetFrame``.
    enum HeardPart: Equatable, Sendable {
        /// The chunk ends before the target: dropped whole, and the dropping goes on.
        case dropped
        /// The chunk from this byte on, whose first frame is `frame`: the target is reached,
        /// and the audio after this chunk is heard whole.
        case from(byte: Int, frame: Int)
    }

    /// The part of a decoded chunk heard after a segment seek to `targetFrame`.
    /// - Parameters:
    ///   - firstFrame: the frame of the chunk's first sample.
    ///   - byteCount: the chunk's length, whole frames of `bytesPerFrame` bytes.
    static func heardPart(ofChunkAt firstFrame: Int, byteCount: Int, bytesPerFrame: Int,
                          targetFrame: Int) -> HeardPart {
        let drop = (targetFrame - firstFrame) * bytesPerFrame
        if drop >= byteCount { return .dropped }
        // A chunk that starts past the target (a decoder that landed late) is heard whole.
        return drop > 0 ? .from(byte: drop, frame: targetFrame) : .from(byte: 0, frame: firstFrame)
    }
}
