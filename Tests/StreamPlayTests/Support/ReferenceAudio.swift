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
}

/// Helpers for comparing PCM sample for sample.
enum PCM {
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

    /// Where (in frames) `needle` first occurs exactly in `haystack`, searching from frame `from`.
    static func find(_ needle: ArraySlice<Int16>, in haystack: [Int16], channels: Int, from: Int = 0) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        var index = from * channels
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index / channels
            }
            index += channels
        }
        return nil
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
