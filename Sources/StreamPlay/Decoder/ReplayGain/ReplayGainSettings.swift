/// Which of a track's ReplayGain values a player applies.
public enum ReplayGainMode: String, Sendable, CaseIterable {
    /// No gain: samples play as decoded.
    case off
    /// The track's own gain, so every track plays about as loud as every other. A track with
    /// only an album gain gets the album gain.
    case track
    /// The album's gain, so an album keeps the loudness steps between its tracks. A track with
    /// only a track gain gets the track gain.
    case album
}

/// How ReplayGain is applied: which value, a preamp, and whether the peak limits the gain.
///
/// The gain comes from the track's own tags (Vorbis comments, MP4 freeform atoms, ID3v2 `TXXX`
/// frames, Opus `R128_*` comments) or, for an MP3 without such tags, from its LAME header. It is
/// applied inside the decoder, before the one rounding to 16 bits, so it adds no second
/// rounding; a track without any ReplayGain value plays unchanged.
public struct ReplayGainSettings: Sendable, Equatable {
    /// Which value to apply. The default, ``ReplayGainMode/off``, leaves samples bit for bit as
    /// decoded.
    public var mode: ReplayGainMode = .off
    /// Decibels added to every gain applied (not to tracks without one). The default is 0; a
    /// negative preamp leaves headroom, a positive one makes quiet masters louder.
    public var preamp: Double = 0
    /// Whether the gain is limited so that the track's peak, as its tag states, stays at full
    /// scale (1/peak). On by default: without it a positive gain clips the loudest samples.
    /// Without a peak tag the gain is not limited.
    public var preventsClipping = true

    /// Creates the default settings: ReplayGain off, no preamp, clipping prevention on.
    public init() {}

    /// Creates settings.
    /// - Parameters:
    ///   - mode: which value to apply.
    ///   - preamp: decibels added to every gain applied.
    ///   - preventsClipping: whether the peak tag limits the gain.
    public init(mode: ReplayGainMode, preamp: Double = 0, preventsClipping: Bool = true) {
        self.mode = mode
        self.preamp = preamp
        self.preventsClipping = preventsClipping
    }
}

/// Where a track's ReplayGain value was read.
public enum ReplayGainSource: String, Sendable, CaseIterable {
    /// `REPLAYGAIN_*` Vorbis comments (FLAC, Ogg) or MP4 `----:com.apple.iTunes:replaygain_*` atoms.
    case tags
    /// ID3v2 `TXXX` frames named `replaygain_*` in front of an MP3.
    case id3v2
    /// An Opus stream's `R128_TRACK_GAIN` or `R128_ALBUM_GAIN` comment, moved from its
    /// reference of −23 LUFS to ReplayGain's.
    case opusR128
    /// The Radio (track) or Audiophile (album) field of an MP3's LAME header.
    case lameHeader
    /// ReplayGain values FFmpeg's demuxer found in the container itself.
    case container
}

/// The ReplayGain a track plays with: what was read, and what was applied.
public struct ReplayGainAdjustment: Sendable, Equatable {
    /// Which value was applied: ``ReplayGainMode/track`` or ``ReplayGainMode/album`` (the other
    /// one when the one asked for is absent).
    public var scope: ReplayGainMode
    /// Where the value was read.
    public var source: ReplayGainSource
    /// The value read, in decibels.
    public var tagGain: Double
    /// The peak read with it (1 is full scale), if the track states one.
    public var peak: Double?
    /// The gain applied, in decibels: the value read plus the preamp, lowered to keep the peak at
    /// full scale when clipping prevention needed it.
    public var appliedGain: Double
    /// Whether clipping prevention lowered the gain.
    public var limitedByPeak: Bool

    /// Creates an adjustment.
    /// - Parameters:
    ///   - scope: which value was applied.
    ///   - source: where it was read.
    ///   - tagGain: the value read, in decibels.
    ///   - peak: the peak read with it.
    ///   - appliedGain: the gain applied, in decibels.
    ///   - limitedByPeak: whether clipping prevention lowered the gain.
    public init(scope: ReplayGainMode, source: ReplayGainSource, tagGain: Double, peak: Double?,
                appliedGain: Double, limitedByPeak: Bool) {
        self.scope = scope
        self.source = source
        self.tagGain = tagGain
        self.peak = peak
        self.appliedGain = appliedGain
        self.limitedByPeak = limitedByPeak
    }
}
