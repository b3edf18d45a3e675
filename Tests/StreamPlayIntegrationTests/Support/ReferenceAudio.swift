import Foundation

/// A reference decode made by the mpg123 command-line program (`mpg123 -s`), with its format.
struct ReferenceAudio {
    let name: String
    let sampleRate: Int
    let channels: Int
    /// Interleaved s16 samples.
    let samples: [Int16]

    var frameCount: Int { samples.count / channels }

    /// Loads `NAME.raw` and `NAME.info` from the media directory.
    init(_ name: String) throws {
        let media = try TestEnvironment.media()
        self.name = name
        let info = try String(contentsOfFile: "\(media)/\(name).info", encoding: .utf8)
        var fields: [String: Int] = [:]
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        sampleRate = fields["rate"] ?? 0
        channels = fields["channels"] ?? 0
        samples = PCM.samples(try Data(contentsOf: URL(fileURLWithPath: "\(media)/\(name).raw")))
    }

    /// `reference`'s name and format with other samples.
    init(_ reference: ReferenceAudio, samples: [Int16]) {
        name = reference.name
        sampleRate = reference.sampleRate
        channels = reference.channels
        self.samples = samples
    }

    /// The references of `names` (one format), played one after the other.
    init(joining names: [String]) throws {
        let parts = try names.map { try ReferenceAudio($0) }
        name = names.joined(separator: "+")
        sampleRate = parts.first?.sampleRate ?? 0
        channels = parts.first?.channels ?? 0
        samples = parts.flatMap(\.samples)
    }
}

/// Helpers for comparing PCM sample for sample.
enum PCM {
    /// Frames of exact silence in a row taken for a wait (a rebuffer, a sound server that ran
    /// dry or restarted), not for a test track, whose sweeps and noise never stay at zero as long.
    static let shortestWait = 64

    static func samples(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The samples of a 16-bit WAV file written by the WAV sink (after its 44-byte header).
    static func wavSamples(path: String) throws -> (sampleRate: Int, channels: Int, samples: [Int16]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count >= 44, data.prefix(4) == Data("RIFF".utf8) else { return (0, 0, []) }
        let channels = Int(data[22]) | Int(data[23]) << 8
        let rate = data[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        return (rate, channels, samples(data.dropFirst(44)))
    }

    /// How closely `output` follows `reference`, in dB: the reference's power over the power of
    /// the difference (the two compared sample for sample, over the shorter). Audio a frame off
    /// scores near 0 dB on these test signals; the same audio decoded after a seek, where a lossy
    /// codec has not settled bit for bit, scores well above 30.
    static func signalToNoise(_ output: ArraySlice<Int16>, _ reference: ArraySlice<Int16>) -> Double {
        var signal = 0.0, noise = 0.0
        for (got, expected) in zip(output, reference) {
            signal += Double(expected) * Double(expected)
            noise += (Double(got) - Double(expected)) * (Double(got) - Double(expected))
        }
        return noise == 0 ? .infinity : 10 * log10(signal / noise)
    }

    /// The gain that best maps `reference` onto `output` (least squares): 1 for the same audio
    /// at the same level.
    static func gain(_ output: ArraySlice<Int16>, _ reference: ArraySlice<Int16>) -> Double {
        var cross = 0.0, power = 0.0
        for (got, expected) in zip(output, reference) {
            cross += Double(got) * Double(expected)
            power += Double(expected) * Double(expected)
        }
        return power == 0 ? 0 : cross / power
    }

    /// Where (in frames) `needle` first occurs exactly in `haystack`, searching from frame `from`.
    static func find(_ needle: ArraySlice<Int16>, in haystack: [Int16], channels: Int, from: Int = 0) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        let pattern = Array(needle)
        return haystack.withUnsafeBufferPointer { hay in
            pattern.withUnsafeBufferPointer { pat in
                var index = from * channels
                let last = hay.count - pat.count
                while index <= last {
                    if hay[index] == pat[0], memcmp(hay.baseAddress! + index, pat.baseAddress!, pat.count * 2) == 0 {
                        return index / channels
                    }
                    index += channels
                }
                return nil
            }
        }
    }

    /// Where in `reference` (in frames) the audio `recording[frame...]` comes from, by exact match
    /// of a window of `windowFrames` frames.
    static func locate(recordingFrame frame: Int, recording: [Int16], in reference: [Int16], channels: Int,
                       windowFrames: Int = 256) -> Int? {
        let start = frame * channels
        let end = start + windowFrames * channels
        guard end <= recording.count else { return nil }
        return find(recording[start..<end], in: reference, channels: channels)
    }

    /// `samples` without its runs of exact silence at least `atLeast` frames long: a rebuffer's
    /// wait, or a sound server that ran dry, cut out so that what remains can be held against a
    /// reference sample for sample.
    static func withoutSilentRuns(_ samples: some Collection<Int16>, channels: Int, atLeast: Int) -> [Int16] {
        let samples = Array(samples)
        var kept: [Int16] = []
        kept.reserveCapacity(samples.count)
        var run: [Int16] = []
        var frame = 0
        while (frame + 1) * channels <= samples.count {
            let slice = samples[(frame * channels)..<((frame + 1) * channels)]
            if slice.allSatisfy({ $0 == 0 }) {
                run.append(contentsOf: slice)
            } else {
                if run.count / channels < atLeast { kept.append(contentsOf: run) }
                run.removeAll(keepingCapacity: true)
                kept.append(contentsOf: slice)
            }
            frame += 1
        }
        return kept
    }

    /// How many frames from the start `output` and `reference` agree, sample for sample.
    static func commonPrefixFrames(_ output: [Int16], _ reference: [Int16], channels: Int) -> Int {
        let samples = zip(output, reference).prefix { $0 == $1 }.count
        return samples / channels
    }

    /// The first frame from `from` on whose samples are not all zero.
    static func firstSound(in samples: [Int16], channels: Int, from: Int = 0, threshold: Int16 = 0) -> Int? {
        var index = from * channels
        while index < samples.count {
            if abs(Int(samples[index])) > Int(threshold) { return index / channels }
            index += 1
        }
        return nil
    }
}

/// A monitor recording held against a reference decode.
///
/// PulseAudio may render the first few milliseconds of a new stream as silence (they fall into a
/// block the sink had already mixed); from the first sample it lets through, the audio must be
/// exact. ``silentLead`` counts those lost frames.
struct MonitorComparison {
    private(set) var aligned = false
    private(set) var complete = false
    private(set) var mismatchedFrames = 0
    private(set) var silentLead = 0
    /// The first track frame (after the silent lead) that the recording does not hold exactly.
    private(set) var firstMismatchedFrame: Int?
    /// From ``firstMismatchedFrame`` to the end: how closely the recording still follows the
    /// track at the same place (``PCM/signalToNoise(_:_:)``) and at what gain (``PCM/gain(_:_:)``).
    /// Rounding or a gain a hair from 1 scores far above 40 dB; audio shifted by a gap near 0 dB.
    private(set) var tailSignalToNoise = Double.infinity
    private(set) var tailGain = 1.0
    /// Frames recorded as exact silence, in runs of at least ``PCM/shortestWait``, where the
    /// track is not silent:
    /// a sound server that ran dry.
    private(set) var silentGapFrames = 0

    /// What went wrong, for a failure message.
    var diagnosis: String {
        guard let first = firstMismatchedFrame else { return "exact" }
        return "first difference at track frame \(first), then \(tailSignalToNoise) dB at gain \(tailGain); "
            + "\(silentGapFrames) frames of silence where the track has sound"
    }

    init(recording: [Int16], reference: ReferenceAudio, anchorFrame: Int = 22050) {
        let channels = reference.channels
        let anchor = min(anchorFrame, reference.frameCount / 2)
        guard let found = PCM.find(reference.samples[(anchor * channels)..<((anchor + 256) * channels)],
                                   in: recording, channels: channels) else { return }
        aligned = true
        let shift = found - anchor
        // Frames at the start recorded as silence instead of the track, or (a recording that
        // began after the track did) not recorded at all.
        var lead = max(0, -shift)
        while lead < reference.frameCount, (shift + lead + 1) * channels <= recording.count,
              (0..<channels).allSatisfy({ recording[(shift + lead) * channels + $0] == 0 }),
              (0..<channels).contains(where: { reference.samples[lead * channels + $0] != 0 }) {
            lead += 1
        }
        silentLead = lead
        complete = (shift + reference.frameCount) * channels <= recording.count
        let end = min(reference.frameCount, recording.count / channels - shift)
        var mismatched = 0, silentRun = 0
        for frame in lead..<max(end, lead) {
            let recorded = recording[((shift + frame) * channels)..<((shift + frame + 1) * channels)]
            let expected = reference.samples[(frame * channels)..<((frame + 1) * channels)]
            if !recorded.elementsEqual(expected) {
                mismatched += 1
                if firstMismatchedFrame == nil { firstMismatchedFrame = frame }
            }
            if recorded.allSatisfy({ $0 == 0 }) && expected.contains(where: { $0 != 0 }) {
                silentRun += 1
            } else {
                if silentRun >= PCM.shortestWait { silentGapFrames += silentRun }
                silentRun = 0
            }
        }
        if silentRun >= PCM.shortestWait { silentGapFrames += silentRun }
        mismatchedFrames = mismatched
        if let first = firstMismatchedFrame {
            let output = recording[((shift + first) * channels)..<((shift + end) * channels)]
            let track = reference.samples[(first * channels)..<(end * channels)]
            tailSignalToNoise = PCM.signalToNoise(output, track)
            tailGain = PCM.gain(output, track)
        }
    }
}
