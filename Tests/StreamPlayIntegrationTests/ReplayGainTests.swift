import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// ReplayGain on real files made by `scripts/make-test-media.sh`: the audio played with a gain is
/// the ffmpeg program's decode scaled by that gain, rounded once; off changes nothing; the peak
/// limits a gain that would clip; track and album pick their own values; a gapless queue keeps
/// its length with a gain per track.
@Suite("ReplayGain", .serialized, .needsTestServers)
struct ReplayGainTests {
    /// The largest difference between two renderings of one signal, each rounded to 16 bits once:
    /// one step (float scaling before and after a rounding differs by less than that).
    static let roundingTolerance = 1

    static func play(_ file: String, _ settings: ReplayGainSettings) async throws -> WAVPlay {
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)") { $0.replayGain = settings }
        #expect(played.state == .ended, "\(file): \(played.state)")
        return played
    }

    static func gains(_ played: WAVPlay) -> [ReplayGainAdjustment] {
        played.events.compactMap { if case .metadata(let names) = $0 { names.replayGain } else { nil } }
    }

    /// The largest sample difference, after checking that the lengths agree.
    static func maximumDifference(_ output: [Int16], _ expected: [Int16], _ name: String) -> Int {
        #expect(output.count == expected.count, "\(name): \(output.count) samples, expected \(expected.count)")
        return zip(output, expected).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// `samples` scaled by `decibels` and rounded, clipped to 16 bits.
    static func scaled(_ samples: [Int16], decibels: Double) -> [Int16] {
        let factor = pow(10, decibels / 20)
        return samples.map { Int16(max(-32768, min(32767, (Double($0) * factor).rounded()))) }
    }

    static func raw(_ name: String) throws -> [Int16] {
        PCM.samples(try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/\(name)")))
    }

    @Test("off: bit for bit as before, and no gain reported", arguments: ["formats/rg-tagged.flac", "formats/rg-r128.opus"])
    func offChangesNothing(file: String) async throws {
        let played = try await Self.play(file, ReplayGainSettings())
        #expect(SampleDifference.between(played.samples, (try ReferenceAudio(file)).samples) == nil, "\(file): off mode changed the audio")
        #expect(Self.gains(played).isEmpty)
    }

    @Test("FLAC, track: the ffmpeg program's decode at -6.02 dB, reported with its source")
    func flacTrack() async throws {
        let played = try await Self.play("formats/rg-tagged.flac", ReplayGainSettings(mode: .track))
        let expected = try Self.raw("formats/rg-tagged.flac.track.raw")
        #expect(Self.maximumDifference(played.samples, expected, "track") <= Self.roundingTolerance)
        let gain = try #require(Self.gains(played).last)
        #expect(gain.scope == .track && gain.source == .tags && gain.appliedGain == -6.02 && gain.peak == 0.51)
        #expect(!gain.limitedByPeak)
    }

    @Test("FLAC, album: the album's -2.5 dB, which differs from the track's")
    func flacAlbum() async throws {
        let album = try await Self.play("formats/rg-tagged.flac", ReplayGainSettings(mode: .album))
        let expected = try Self.raw("formats/rg-tagged.flac.album.raw")
        #expect(Self.maximumDifference(album.samples, expected, "album") <= Self.roundingTolerance)
        let gain = try #require(Self.gains(album).last)
        #expect(gain.scope == .album && gain.appliedGain == -2.5 && gain.peak == 0.6)
        let track = try Self.raw("formats/rg-tagged.flac.track.raw")
        #expect(Self.maximumDifference(album.samples, track, "album against track") > 1000, "album and track play alike")
    }

    @Test("M4A with iTunes-style freeform comments (----:com.apple.iTunes:replaygain_*): track and album, each the ffmpeg program's decode scaled")
    func m4aFreeform() async throws {
        for (mode, reference, decibels) in [(ReplayGainMode.track, "track", -6.02), (.album, "album", -2.5)] {
            let played = try await Self.play("formats/rg-tagged.m4a", ReplayGainSettings(mode: mode))
            let expected = try Self.raw("formats/rg-tagged.m4a.\(reference).raw")
            #expect(Self.maximumDifference(played.samples, expected, "M4A \(reference)") <= Self.roundingTolerance)
            let gain = try #require(Self.gains(played).last, "M4A \(reference): no gain reported")
            #expect(gain.scope == mode && gain.source == .tags && gain.appliedGain == decibels)
        }
    }

    @Test("a preamp adds to the gain")
    func preamp() async throws {
        // -6.02 + 3.52 = -2.5 dB: the album reference.
        let played = try await Self.play("formats/rg-tagged.flac", ReplayGainSettings(mode: .track, preamp: 3.52))
        let expected = try Self.raw("formats/rg-tagged.flac.album.raw")
        #expect(Self.maximumDifference(played.samples, expected, "preamp") <= Self.roundingTolerance)
    }

    @Test("a gain whose peak tag would clip is limited to 1/peak; without prevention it applies whole")
    func clippingPrevention() async throws {
        let limited = try await Self.play("formats/rg-clip.flac", ReplayGainSettings(mode: .track))
        let expected = try Self.raw("formats/rg-clip.flac.limited.raw")
        #expect(Self.maximumDifference(limited.samples, expected, "limited") <= Self.roundingTolerance)
        let gain = try #require(Self.gains(limited).last)
        #expect(gain.limitedByPeak && gain.tagGain == 6 && abs(gain.appliedGain - 20 * log10(1.25)) < 1e-9)

        let whole = try await Self.play("formats/rg-clip.flac", ReplayGainSettings(mode: .track, preventsClipping: false))
        let plain = try ReferenceAudio("formats/rg-clip.flac").samples
        #expect(Self.maximumDifference(whole.samples, Self.scaled(plain, decibels: 6), "whole") <= Self.roundingTolerance)
        #expect(Self.gains(whole).last?.limitedByPeak == false)
    }

    @Test("Opus R128: Q7.8 dB plus 5 dB, track -5 dB and album +7 dB (no peak, so not limited)")
    func opusR128() async throws {
        let plain = try ReferenceAudio("formats/rg-r128.opus").samples
        let track = try await Self.play("formats/rg-r128.opus", ReplayGainSettings(mode: .track))
        #expect(Self.maximumDifference(track.samples, Self.scaled(plain, decibels: -5), "opus track") <= Self.roundingTolerance)
        let trackGain = try #require(Self.gains(track).last)
        #expect(trackGain.source == .opusR128 && trackGain.scope == .track && trackGain.appliedGain == -5)

        let album = try await Self.play("formats/rg-r128.opus", ReplayGainSettings(mode: .album))
        // The reference was rounded before the ×2.24: its rounding grows with the gain.
        #expect(Self.maximumDifference(album.samples, Self.scaled(plain, decibels: 7), "opus album") <= 2)
        #expect(Self.gains(album).last?.appliedGain == 7)
    }

    @Test("MP3 with ID3v2 TXXX frames: libmpg123 scales before its rounding; album falls back to the track gain")
    func mp3ID3() async throws {
        let file = "formats/rg-tagged.mp3"
        let plain = try await Self.play(file, ReplayGainSettings())
        #expect(Self.gains(plain).isEmpty)
        for mode in [ReplayGainMode.track, .album] {
            let played = try await Self.play(file, ReplayGainSettings(mode: mode))
            #expect(Self.maximumDifference(played.samples, Self.scaled(plain.samples, decibels: -6.02), "\(mode)")
                <= Self.roundingTolerance)
            let gain = try #require(Self.gains(played).last, "\(mode): no gain reported")
            #expect(gain.source == .id3v2 && gain.scope == .track && gain.appliedGain == -6.02 && gain.peak == 0.51)
        }
    }

    @Test("MP3 without tags: the LAME header's Radio gain, through libmpg123; album mode falls back to it")
    func lameHeader() async throws {
        // lame writes the Radio (track) gain of its analysis into the header by default.
        let file = "cbr-44k-stereo-short.mp3"
        let plain = try await Self.play(file, ReplayGainSettings())
        #expect(Self.gains(plain).isEmpty)
        var applied: [Double] = []
        for mode in [ReplayGainMode.track, .album] {
            let played = try await Self.play(file, ReplayGainSettings(mode: mode, preventsClipping: false))
            let gain = try #require(Self.gains(played).last, "\(mode): no gain reported")
            #expect(gain.source == .lameHeader && gain.scope == .track && gain.tagGain != 0)
            #expect(Self.maximumDifference(played.samples, Self.scaled(plain.samples, decibels: gain.appliedGain), "\(mode)")
                <= Self.roundingTolerance)
            applied.append(gain.appliedGain)
        }
        #expect(applied[0] == applied[1])
    }

    @Test("a gapless queue with a gain per track: exactly the two tracks' lengths, each with its own gain")
    func gaplessQueue() async throws {
        let http = try TestEnvironment.http()
        let first = try Self.raw("formats/rg-tagged.flac.track.raw")
        let second = try Self.raw("formats/rg-clip.flac.limited.raw")
        let played = try await playToWAV(configure: { $0.replayGain = ReplayGainSettings(mode: .track) }) { player in
            player.play([try MediaLocation(parsing: "\(http)/formats/rg-tagged.flac"),
                         try MediaLocation(parsing: "\(http)/formats/rg-clip.flac")])
        }
        #expect(played.state == .ended)
        #expect(Self.maximumDifference(played.samples, first + second, "queue") <= Self.roundingTolerance)
        #expect(Self.gains(played).map(\.appliedGain).count == 2)
    }
}
