import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// HLS segments in every format SoundCloud and radio use play through FFmpeg as one continuous
/// stream: ADTS AAC, MPEG-TS (here with MP3 inside), and fragmented MP4 after its EXT-X-MAP init
/// segment. The reference is the ffmpeg program's decode of the segments joined into one file,
/// so a decoder reset or a repeated init at a join shows as a difference.
@Suite("HLS formats through FFmpeg", .serialized, .needsTestServers)
struct HLSFormatTests {
    @Test("segments decode as one stream, sample for sample", arguments: [
        ("hls/aac/index.m3u8", "hls/aac/stream"), ("hls/ts/index.m3u8", "hls/ts/stream"),
        ("hls/fmp4/index.m3u8", "hls/fmp4/stream"),
        // One file: EXT-X-MAP and the segments are byte ranges of it.
        ("hls/fmp4-single/index.m3u8", "hls/fmp4-single/stream"),
        // MPEG-TS under .mp3 names: the content decides.
        ("hls/disguised-ts/index.m3u8", "hls/ts/stream"),
    ])
    func continuous(playlist: String, reference name: String) async throws {
        let reference = try ReferenceAudio(name)
        let result = try await playToWAV(try HLSTests.http(playlist))
        #expect(result.state == .ended)
        #expect(result.samples.count == reference.samples.count, "\(playlist): \(result.samples.count) samples, the reference \(reference.samples.count)")
        #expect(SampleDifference.between(result.samples, reference.samples) == nil, "\(playlist): the audio differs from the joined segments' decode")
    }

    @Test("the init segment is fetched once for a play, and once more for a seek, which starts the demuxer afresh")
    func initSegmentOnce() async throws {
        let initRequests = { try accessLogEntries(for: "/hls/fmp4/init.mp4").count }
        let before = try initRequests()
        let played = try await playToWAV(try HLSTests.http("hls/fmp4/index.m3u8"))
        #expect(played.state == .ended)
        let afterPlay = try initRequests()
        #expect(afterPlay - before == 1, "a play reads the init segment once, read \(afterPlay - before)")
        let seeked = try await playToWAV(try HLSTests.http("hls/fmp4/index.m3u8"), startingAt: 9.5)
        #expect(seeked.state == .ended)
        // A start offset is a seek once the format is known: the first segment's init, then the
        // target segment's.
        #expect(try initRequests() - afterPlay == 2, "a play that starts with a seek reads the init segment twice")
    }

    @Test("a seek into a later segment lands on the target frame", arguments: [
        ("hls/fmp4/index.m3u8", "hls/fmp4/stream"), ("hls/fmp4-single/index.m3u8", "hls/fmp4-single/stream"), ("hls/ts/index.m3u8", "hls/ts/stream"),
        ("hls/aac/index.m3u8", "hls/aac/stream"),
    ])
    func seek(playlist: String, reference name: String) async throws {
        let reference = try ReferenceAudio(name)
        let result = try await playToWAV(try HLSTests.http(playlist), startingAt: 9.5)
        #expect(result.state == .ended)
        let target = Int(9.5 * 44100) * 2
        #expect(result.samples.count == reference.samples.count - target, "\(playlist): \(result.samples.count) samples after the seek")
        // Decoded from the segment's start; AAC's noise substitution does not repeat the whole
        // stream's decode bit for bit, so the audio is compared by its difference from the
        // reference at the target, which a landing one frame off turns into noise.
        let window = 44100 * 2
        let snr = PCM.signalToNoise(result.samples[0..<window], reference.samples[target..<(target + window)])
        #expect(snr > 30, "\(playlist): the second after the seek is \(snr) dB from the reference at the target")
        let offByOne = PCM.signalToNoise(result.samples[0..<window], reference.samples[(target + 2)..<(target + 2 + window)])
        #expect(offByOne < snr - 10, "\(playlist): one frame later matches as well (\(offByOne) dB)")
    }

    @Test("SAMPLE-AES with a FairPlay key is refused as DRM, naming the scheme, before any audio")
    func sampleAES() async throws {
        let result = try await playToWAV(try HLSTests.http("hls/sample-aes/index.m3u8"))
        guard case .failed(let error) = result.state else {
            Issue.record("expected a DRM failure, got \(result.state)")
            return
        }
        #expect(error.code == .drmProtected)
        #expect(error.format?.contains("SAMPLE-AES") == true, "\(error)")
        #expect(error.description.contains("DRM"), "\(error)")
        #expect(result.samples.isEmpty)
    }
}
