/// Chooses which variant of a master playlist to play.
enum HLSVariantSelection {
    /// The RFC 6381 codec strings of MPEG audio, which the decoder plays (compared without case):
    /// MP3 as an MPEG-4 object type (34) or an MPEG-4 systems OTI (0x6B MPEG-1, 0x69 MPEG-2),
    /// plain "mp3", and Layer I and II as object types 32 and 33.
    static let mpegAudioCodecs: Set<String> = ["mp4a.40.34", "mp4a.6b", "mp4a.69", "mp3", "mp4a.40.33", "mp4a.40.32"]

    /// Picks the variant to play: variants whose CODECS name only non-MPEG-audio codecs are
    /// skipped (MP3 codec strings: "mp4a.40.34", "mp4a.6B", "mp4a.69", "mp3"; MP2 and MP1 as
    /// "mp4a.40.33" and "mp4a.40.32"; variants without CODECS are kept); among the rest, the one
    /// with the highest BANDWIDTH not above `maximumBandwidth` (bits/s), or the lowest one if
    /// all are above it; the highest when `maximumBandwidth` is nil. Of equal bandwidths, the
    /// first listed wins.
    ///
    /// Returns nil when no variant remains (caller reports unsupportedFormat, "AAC" when all
    /// were mp4a.40.2 etc).
    static func choose(from variants: [HLSVariant], maximumBandwidth: Int?) -> HLSVariant? {
        let playable = variants.filter(isPlayable)
        // max(by:) and min(by:) keep the first of equal elements.
        let highest = { (candidates: [HLSVariant]) in candidates.max { $0.bandwidth < $1.bandwidth } }
        guard let maximumBandwidth else { return highest(playable) }
        return highest(playable.filter { $0.bandwidth <= maximumBandwidth })
            ?? playable.min { $0.bandwidth < $1.bandwidth }
    }

    /// Whether the decoder can play `variant`: its CODECS name MPEG audio, or are not given.
    static func isPlayable(_ variant: HLSVariant) -> Bool {
        variant.codecs.isEmpty || variant.codecs.contains { mpegAudioCodecs.contains($0.lowercased()) }
    }
}
