import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// An M4A whose gapless facts are only in an `iTunSMPB` comment (no edit list), as iTunes-style
/// encoders write them: it plays exactly the source's samples, and a queue of two such tracks
/// joins sample for sample.
@Suite("iTunSMPB gapless M4A", .serialized, .needsTestServers)
struct ITunesGaplessTests {
    /// AAC at 128 kbit/s against the source, aligned: well above what a shift by the priming
    /// (1024 samples) leaves of this signal (about 0 dB).
    static let minimumSignalToNoise = 8.0

    @Test("played over HTTP and from a file: the source's length, the priming skipped, the padding cut",
          arguments: [true, false])
    func exactLength(overHTTP: Bool) async throws {
        let file = "smpb/tone.m4a"
        let source = try ReferenceAudio(file)
        let decoded = try ReferenceAudio("\(file).decoded")
        let base = overHTTP ? try TestEnvironment.http() : try TestEnvironment.media()
        let played = try await playToWAV("\(base)/\(file)")
        #expect(played.state == .ended)
        #expect(played.samples.count == source.samples.count,
                "\(played.samples.count) samples, the source \(source.samples.count)")
        let count = min(played.samples.count, source.samples.count)
        let snr = PCM.signalToNoise(played.samples[..<count], source.samples[..<count])
        #expect(snr > Self.minimumSignalToNoise, "SNR against the source \(snr) dB")
        #expect(SampleDifference.between(played.samples, decoded.samples) == nil, "the audio differs from ffmpeg's decode cut to the iTunSMPB length")
        let durations = played.events.compactMap { if case .durationKnown(let seconds) = $0 { seconds } else { nil } }
        let duration = try #require(durations.last)
        #expect(abs(duration - Double(source.frameCount) / 44100) < 0.001, "duration \(duration)")
    }

    @Test("a queue of two iTunSMPB tracks cut from one signal joins without a gap or an overlap")
    func gaplessQueue() async throws {
        let parts = ["smpb/part1.m4a", "smpb/part2.m4a"]
        let locations = try parts.map { try MediaLocation(parsing: "\(try TestEnvironment.http())/\($0)") }
        let played = try await playToWAV { $0.play(locations) }
        #expect(played.state == .ended)
        let expected = try ReferenceAudio(joining: parts.map { "\($0).decoded" }).samples
        let source = try ReferenceAudio(joining: parts).samples
        #expect(played.samples.count == source.count, "\(played.samples.count) samples, the source \(source.count)")
        #expect(SampleDifference.between(played.samples, expected) == nil, "the joined output differs from the two decodes cut to length, end to end")
        let count = min(played.samples.count, source.count)
        let snr = PCM.signalToNoise(played.samples[..<count], source[..<count])
        #expect(snr > Self.minimumSignalToNoise, "SNR of the join against the source \(snr) dB")
    }
}
