/// Chooses which variant of a master playlist to play.
enum HLSVariantSelection {
    /// The RFC 6381 codec strings of audio the decoders play (compared without case): every
    /// MPEG-4 audio object type and systems OTI ("mp4a.40.2" AAC-LC, "mp4a.40.5" HE-AAC,
    /// "mp4a.40.34" MP3, "mp4a.6B", "mp4a.69"), and by name MP3, Opus, FLAC, Vorbis, AC-3 and
    /// E-AC-3.
    static func isDecodedAudioCodec(_ codec: String) -> Bool {
        let codec = codec.lowercased()
        return codec.hasPrefix("mp4a.") || ["mp3", "opus", "flac", "fla", "vorbis", "ac-3", "ec-3"].contains(codec)
    }

    /// Picks the variant to play: variants whose CODECS name no audio codec the decoders play
    /// are skipped (variants without CODECS are kept); among the rest, the one with the highest
    /// BANDWIDTH not above `maximumBandwidth` (bits/s), or the lowest one if all are above it;
    /// the highest when `maximumBandwidth` is nil. Of equal bandwidths, the first listed wins.
    ///
    /// Returns nil when no variant remains (the caller reports unsupportedFormat).
    static func choose(from variants: [HLSVariant], maximumBandwidth: Int?) -> HLSVariant? {
        let playable = variants.filter(isPlayable)
        // max(by:) and min(by:) keep the first of equal elements.
        let highest = { (candidates: [HLSVariant]) in candidates.max { $0.bandwidth < $1.bandwidth } }
        guard let maximumBandwidth else { return highest(playable) }
        return highest(playable.filter { $0.bandwidth <= maximumBandwidth })
            ?? playable.min { $0.bandwidth < $1.bandwidth }
    }

    /// Whether the decoders can play `variant`: its CODECS name audio they decode, or are not given.
    static func isPlayable(_ variant: HLSVariant) -> Bool {
        variant.codecs.isEmpty || variant.codecs.contains(where: isDecodedAudioCodec)
    }
}
