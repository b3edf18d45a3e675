#if canImport(Glibc)
import Glibc
#endif

/// The ReplayGain values a track's tags state, and the arithmetic that turns them into the one
/// scale factor its decoder applies. Pure: parsing and choosing only, no I/O.
struct ReplayGainValues: Equatable {
    var trackGain: Double?
    var trackPeak: Double?
    var albumGain: Double?
    var albumPeak: Double?
    var source: ReplayGainSource

    /// Whether neither gain is known.
    var isEmpty: Bool { trackGain == nil && albumGain == nil }

    /// Decibels a tag may state at most either way; beyond, the tag is taken for damage.
    static let plausibleGain = 60.0

    /// Reads `REPLAYGAIN_TRACK_GAIN` and its siblings through `value`, which looks a key up
    /// without case (Vorbis comments, MP4 freeform atoms and ID3v2 `TXXX` descriptions all
    /// spell them differently).
    init?(source: ReplayGainSource, value: (String) -> String?) {
        self.source = source
        trackGain = value("replaygain_track_gain").flatMap(Self.gain(from:))
        albumGain = value("replaygain_album_gain").flatMap(Self.gain(from:))
        trackPeak = value("replaygain_track_peak").flatMap(Self.peak(from:))
        albumPeak = value("replaygain_album_peak").flatMap(Self.peak(from:))
        if isEmpty { return nil }
    }

    /// Reads an Opus stream's `R128_TRACK_GAIN` and `R128_ALBUM_GAIN` through `value`.
    init?(opusR128 value: (String) -> String?) {
        source = .opusR128
        trackGain = value("r128_track_gain").flatMap(Self.r128Gain(from:))
        albumGain = value("r128_album_gain").flatMap(Self.r128Gain(from:))
        if isEmpty { return nil }
    }

    init(trackGain: Double?, trackPeak: Double?, albumGain: Double?, albumPeak: Double?, source: ReplayGainSource) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
        self.source = source
    }

    /// A gain such as `-6.20 dB`, `+1.5 dB` or `3`: a decimal number, a unit of `dB` (any case)
    /// or none. `nil` for anything else or beyond ``plausibleGain``.
    static func gain(from text: String) -> Double? {
        var number = text.trimmingWhitespace()[...]
        if number.lowercased().hasSuffix("db") { number = number.dropLast(2) }
        guard let value = Double(number.trimmingWhitespace()), value.isFinite,
              abs(value) <= plausibleGain else { return nil }
        return value
    }

    /// A peak such as `0.988525`: a positive sample amplitude, 1 being full scale.
    static func peak(from text: String) -> Double? {
        guard let value = Double(text.trimmingWhitespace()), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// Opus's R128 gains are Q7.8 decibels (a signed 16-bit integer over 256) relative to
    /// −23 LUFS; ReplayGain's reference is 5 dB louder (−18 LUFS), as mpv counts it.
    static func r128Gain(from text: String) -> Double? {
        guard let value = Int16(text.trimmingWhitespace()) else { return nil }
        return Double(value) / 256 + r128Offset
    }

    /// Decibels from R128's reference loudness (−23 LUFS) to ReplayGain 2's (−18 LUFS).
    static let r128Offset = 5.0

    /// The adjustment `settings` ask for: the value of the mode's scope or, when absent, of
    /// the other; the preamp added; the gain limited to 1/peak when clipping prevention is on.
    /// `nil` when the mode is off.
    func adjustment(for settings: ReplayGainSettings) -> ReplayGainAdjustment? {
        let wanted: (scope: ReplayGainMode, gain: Double?, peak: Double?)
        let other: (scope: ReplayGainMode, gain: Double?, peak: Double?)
        switch settings.mode {
        case .off: return nil
        case .track:
            wanted = (.track, trackGain, trackPeak)
            other = (.album, albumGain, albumPeak)
        case .album:
            wanted = (.album, albumGain, albumPeak)
            other = (.track, trackGain, trackPeak)
        }
        guard let chosen = wanted.gain != nil ? wanted : (other.gain != nil ? other : nil),
              let tagGain = chosen.gain else { return nil }
        var applied = tagGain + settings.preamp
        var limited = false
        if settings.preventsClipping, let peak = chosen.peak, Self.scale(forDecibels: applied) * peak > 1 {
            applied = -20 * log10(peak)
            limited = true
        }
        return ReplayGainAdjustment(scope: chosen.scope, source: source, tagGain: tagGain, peak: chosen.peak,
                                    appliedGain: applied, limitedByPeak: limited)
    }

    /// The factor samples are multiplied by for a gain of `decibels`.
    static func scale(forDecibels decibels: Double) -> Double {
        pow(10, decibels / 20)
    }
}

extension ReplayGainAdjustment {
    /// The factor the decoder multiplies samples by.
    var scale: Double { ReplayGainValues.scale(forDecibels: appliedGain) }
}
