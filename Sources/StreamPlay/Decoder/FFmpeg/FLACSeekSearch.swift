/// Where a seek in a FLAC without a seek table starts decoding: a search over byte offsets that
/// reads frame headers (``FLACFrameHeader``) at the offsets it chooses.
///
/// libavformat searches such a file too, but by interpolation alone: its next guess assumes
/// the bitrate is even between what it knows. A FLAC's bitrate is anything but (silence takes
/// a hundredth of the bytes music does), so that search creeps towards the target, and over
/// HTTP each step is a Range request: about 70 for the harness's file, which is silent for
/// its first half. This one interpolates too, but bisects whenever interpolating did not
/// halve the bracket, so it needs at most about twice log2(bytes ÷ ``window``) reads, and it
/// takes every frame a read shows, not only the first.
///
/// A value with no I/O: ``nextRead()`` says which bytes to read, ``record(frames:readAt:)``
/// takes the frames found there, and once ``nextRead()`` says there is nothing left to read,
/// ``landing`` is the answer if ``isSettled`` (else the caller falls back to libavformat).
struct FLACSeekSearch: Sendable {
    /// A frame: its resource offset and its first sample.
    struct Frame: Equatable, Sendable {
        var offset: Int
        var sample: Int
    }

    /// The sample to reach.
    let target: Int
    /// The last frame known to start at or before the target: where decoding would start.
    private(set) var landing: Frame
    /// Every frame at or after this offset starts after the target.
    private var upperOffset: Int
    /// The first sample known to lie beyond the target, at `upperOffset` or after it.
    private var upperSample: Int
    /// Samples between the landing and the target that are decoded and dropped rather than
    /// searched away: decoding them costs less than another request.
    let closeEnough: Int
    /// Bytes of one read. A frame is found in a read when the read also holds the frame after
    /// it (which confirms the header), so this is at least two of the stream's largest frames.
    let window: Int
    private var bisectNext = false
    private var finished = false
    /// Reads asked for so far.
    private(set) var reads = 0
    /// The most reads a search takes before it gives up (a stream whose frame numbers do not
    /// grow with its offsets).
    static let readLimit = 64

    /// - Parameters:
    ///   - lower: a frame at or before the target (the first frame, or the one playing).
    ///   - upper: an offset from which every frame starts after the target, and a sample at or
    ///     before that offset's frame (the end of the stream and its length in samples).
    init(target: Int, lower: Frame, upperOffset: Int, upperSample: Int, closeEnough: Int, window: Int) {
        self.target = target
        landing = lower
        self.upperOffset = upperOffset
        self.upperSample = max(upperSample, target + 1)
        self.closeEnough = closeEnough
        self.window = window
    }

    /// Whether ``landing`` is the answer: within ``closeEnough`` of the target, or the last
    /// frame before it. `false` when the search stopped at ``readLimit`` short of that.
    var isSettled: Bool { finished || target - landing.sample <= closeEnough }

    /// The offset to read `window` bytes at next, or `nil` when the search is over (see
    /// ``isSettled``).
    mutating func nextRead() -> Int? {
        guard !finished, reads < Self.readLimit else { return nil }
        if target - landing.sample <= closeEnough { return nil }
        let span = upperOffset - landing.offset
        if span <= window {
            // One read sees every frame left between the landing and the bound (if a frame
            // can fit there at all).
            finished = true
            guard span > 1 else { return nil }
            reads += 1
            return landing.offset + 1
        }
        let guess: Int
        if bisectNext {
            guess = landing.offset + span / 2
        } else {
            // Aim the read's middle at the target, as if the bitrate were even in the bracket.
            let fraction = Double(target - landing.sample) / Double(upperSample - landing.sample)
            guess = landing.offset + Int(fraction * Double(span)) - window / 2
        }
        reads += 1
        return min(max(guess, landing.offset + 1), upperOffset - window)
    }

    /// Takes the frames found by reading at `offset`, in order.
    /// - Returns: `false` when a read inside the bracket found no frame at all, which a FLAC
    ///   stream's bytes cannot do (the search is then abandoned). The last read, from the
    ///   landing on, may find none: the landing's frame then fills it.
    mutating func record(frames: [Frame], readAt offset: Int) -> Bool {
        guard !frames.isEmpty else { return finished }
        let spanBefore = upperOffset - landing.offset
        for frame in frames where frame.sample <= target && frame.sample >= landing.sample {
            landing = frame
        }
        if let beyond = frames.first(where: { $0.sample > target }), beyond.offset < upperOffset {
            upperOffset = beyond.offset
            upperSample = beyond.sample
        }
        // Interpolation that did not halve the bracket is not trusted with the next guess.
        bisectNext = !bisectNext && (upperOffset - landing.offset) * 2 > spanBefore
        return true
    }
}
