import Foundation

/// What a recording shows of one play from start to end: when sound began, the gaps in it
/// (rebuffers, outages) and how much audio was heard.
struct PlaybackTrace {
    /// Seconds from the ask to the first sound (by the sample count; the caller may time it
    /// better).
    var firstSound: Double
    /// Lengths in seconds of the silent stretches between the first and the last sound.
    let gaps: [Double]
    /// Where each gap began, in seconds from the first sound.
    let gapStarts: [Double]
    /// Seconds of sound heard (first to last sound, less the gaps).
    let heard: Double

    /// Silence shorter than this is not a gap: the test signal is never that quiet for so long.
    static let minimumGap = 0.02

    /// A report note listing the gaps ("Round 2, mpv: 120 ms silent at 3.41 s."), or nil
    /// without any.
    func gapNote(round: Int, subject: Subject) -> String? {
        guard !gaps.isEmpty else { return nil }
        return "Round \(round + 1), \(subject.rawValue): " + zip(gapStarts, gaps)
            .map { String(format: "%.0f ms silent at %.2f s", $1 * 1000, $0) }.joined(separator: ", ") + "."
    }

    /// Reads the trace of frames `from`..<`to` of `samples` (interleaved stereo starting at
    /// frame `firstFrame`); `ask` is the frame at which play was asked.
    init?(samples: [Int16], firstFrame: Int, ask: Int, rate: Int, threshold: Int16 = 64) {
        let frames = samples.count / 2
        func loud(_ frame: Int) -> Bool { MonitorRecorder.isLoud(samples, frame: frame, threshold: threshold) }
        guard let first = (0..<frames).first(where: loud),
              let last = (0..<frames).last(where: loud) else { return nil }
        let minimumFrames = Int(Self.minimumGap * Double(rate))
        var gaps: [Double] = []
        var gapStarts: [Double] = []
        var silentRun = 0
        var silentTotal = 0
        for frame in first...last {
            if loud(frame) {
                if silentRun >= minimumFrames {
                    gaps.append(Double(silentRun) / Double(rate))
                    gapStarts.append(Double(frame - silentRun - first) / Double(rate))
                    silentTotal += silentRun
                }
                silentRun = 0
            } else {
                silentRun += 1
            }
        }
        firstSound = Double(firstFrame + first - ask) / Double(rate)
        self.gaps = gaps
        self.gapStarts = gapStarts
        heard = Double(last - first + 1 - silentTotal) / Double(rate)
    }
}
