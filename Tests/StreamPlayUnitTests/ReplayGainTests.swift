@testable import StreamPlay
import Testing

/// ReplayGain tag values and the arithmetic that picks and limits the gain: no I/O.
@Suite struct ReplayGainTests {
    private func values(_ tags: [String: String], source: ReplayGainSource = .tags) -> ReplayGainValues? {
        // Keys are looked up in lower case, as the readers do (FFmpeg matches without case).
        let lowered = Dictionary(uniqueKeysWithValues: tags.map { ($0.key.lowercased(), $0.value) })
        return ReplayGainValues(source: source) { lowered[$0] }
    }

    @Test func parsesGainsWithAndWithoutTheUnit() {
        #expect(ReplayGainValues.gain(from: "-6.20 dB") == -6.2)
        #expect(ReplayGainValues.gain(from: " +1.50 DB ") == 1.5)
        #expect(ReplayGainValues.gain(from: "3") == 3)
        #expect(ReplayGainValues.gain(from: "-7.1dB") == -7.1)
        #expect(ReplayGainValues.gain(from: "loud") == nil)
        #expect(ReplayGainValues.gain(from: "") == nil)
        #expect(ReplayGainValues.gain(from: "nan dB") == nil)
        #expect(ReplayGainValues.gain(from: "-99 dB") == nil)
    }

    @Test func parsesPeaks() {
        #expect(ReplayGainValues.peak(from: "0.988525") == 0.988525)
        #expect(ReplayGainValues.peak(from: "1.2") == 1.2)
        #expect(ReplayGainValues.peak(from: "0") == nil)
        #expect(ReplayGainValues.peak(from: "-0.5") == nil)
        #expect(ReplayGainValues.peak(from: "x") == nil)
    }

    @Test func readsAllFourKeysWhateverTheirCase() throws {
        let read = try #require(values(["REPLAYGAIN_TRACK_GAIN": "-6.20 dB", "replaygain_track_peak": "0.5",
                                        "ReplayGain_Album_Gain": "-4 dB", "REPLAYGAIN_ALBUM_PEAK": "0.9"]))
        #expect(read == ReplayGainValues(trackGain: -6.2, trackPeak: 0.5, albumGain: -4, albumPeak: 0.9, source: .tags))
        #expect(values(["REPLAYGAIN_TRACK_PEAK": "0.5"]) == nil)
        #expect(values(["TITLE": "x"]) == nil)
    }

    @Test func r128GainsAreQ7Dot8MovedToTheReplayGainReference() throws {
        // -2560 / 256 = -10 dB at -23 LUFS, -5 dB at ReplayGain's -18 LUFS.
        let tags = ["r128_track_gain": "-2560", "r128_album_gain": "512"]
        let read = try #require(ReplayGainValues(opusR128: { tags[$0] }))
        #expect(read.trackGain == -5)
        #expect(read.albumGain == 7)
        #expect(read.trackPeak == nil)
        #expect(read.source == .opusR128)
        #expect(ReplayGainValues.r128Gain(from: "70000") == nil)
        #expect(ReplayGainValues.r128Gain(from: "-6.5") == nil)
    }

    @Test func offAppliesNothing() {
        let read = ReplayGainValues(trackGain: -6, trackPeak: nil, albumGain: -3, albumPeak: nil, source: .tags)
        #expect(read.adjustment(for: ReplayGainSettings()) == nil)
    }

    @Test func trackAndAlbumPickTheirOwnGainAndPeak() throws {
        let read = ReplayGainValues(trackGain: -6, trackPeak: 0.4, albumGain: -3, albumPeak: 0.5, source: .tags)
        let track = try #require(read.adjustment(for: ReplayGainSettings(mode: .track)))
        #expect(track.scope == .track && track.tagGain == -6 && track.peak == 0.4 && track.appliedGain == -6)
        #expect(!track.limitedByPeak)
        let album = try #require(read.adjustment(for: ReplayGainSettings(mode: .album)))
        #expect(album.scope == .album && album.tagGain == -3 && album.peak == 0.5 && album.appliedGain == -3)
    }

    @Test func eachModeFallsBackToTheOtherGain() throws {
        let onlyTrack = ReplayGainValues(trackGain: -6, trackPeak: 0.5, albumGain: nil, albumPeak: nil, source: .tags)
        let album = try #require(onlyTrack.adjustment(for: ReplayGainSettings(mode: .album)))
        #expect(album.scope == .track && album.appliedGain == -6 && album.peak == 0.5)
        let onlyAlbum = ReplayGainValues(trackGain: nil, trackPeak: 0.9, albumGain: -2, albumPeak: 0.7, source: .id3v2)
        let track = try #require(onlyAlbum.adjustment(for: ReplayGainSettings(mode: .track)))
        #expect(track.scope == .album && track.appliedGain == -2 && track.peak == 0.7 && track.source == .id3v2)
    }

    @Test func thePreampIsAdded() throws {
        let read = ReplayGainValues(trackGain: -6, trackPeak: nil, albumGain: nil, albumPeak: nil, source: .tags)
        let adjustment = try #require(read.adjustment(for: ReplayGainSettings(mode: .track, preamp: 2.5)))
        #expect(adjustment.appliedGain == -3.5)
        #expect(adjustment.tagGain == -6)
    }

    @Test func clippingPreventionLimitsTheGainToOneOverThePeak() throws {
        // +6 dB would take a peak of 0.8 to about 1.6: limited to 1/0.8, about +1.94 dB.
        let read = ReplayGainValues(trackGain: 6, trackPeak: 0.8, albumGain: nil, albumPeak: nil, source: .tags)
        let limited = try #require(read.adjustment(for: ReplayGainSettings(mode: .track)))
        #expect(limited.limitedByPeak)
        #expect(abs(limited.scale * 0.8 - 1) < 1e-12)
        #expect(abs(limited.appliedGain - 1.9382) < 1e-3)
        // Switched off, the whole gain applies.
        let unlimited = try #require(read.adjustment(for: ReplayGainSettings(mode: .track, preventsClipping: false)))
        #expect(unlimited.appliedGain == 6 && !unlimited.limitedByPeak)
        // A gain that keeps the peak below full scale is not touched, and no peak means no limit.
        let quiet = ReplayGainValues(trackGain: -6, trackPeak: 0.99, albumGain: nil, albumPeak: nil, source: .tags)
        #expect(quiet.adjustment(for: ReplayGainSettings(mode: .track))?.limitedByPeak == false)
        let noPeak = ReplayGainValues(trackGain: 12, trackPeak: nil, albumGain: nil, albumPeak: nil, source: .tags)
        #expect(noPeak.adjustment(for: ReplayGainSettings(mode: .track))?.appliedGain == 12)
    }

    @Test func thePreampCountsTowardsClipping() throws {
        let read = ReplayGainValues(trackGain: -1, trackPeak: 0.5, albumGain: nil, albumPeak: nil, source: .tags)
        // -1 + 10 = +9 dB (×2.8) on a peak of 0.5: limited to ×2.
        let adjustment = try #require(read.adjustment(for: ReplayGainSettings(mode: .track, preamp: 10)))
        #expect(adjustment.limitedByPeak)
        #expect(abs(adjustment.scale - 2) < 1e-12)
    }

    @Test func scaleIsTheDecibelsAsAnAmplitudeFactor() {
        #expect(abs(ReplayGainValues.scale(forDecibels: -6.0206) - 0.5) < 1e-4)
        #expect(ReplayGainValues.scale(forDecibels: 0) == 1)
        #expect(abs(ReplayGainValues.scale(forDecibels: 20) - 10) < 1e-12)
    }
}
