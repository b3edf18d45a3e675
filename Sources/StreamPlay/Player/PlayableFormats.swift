/// An audio codec a stream may carry, as services name their renditions.
public enum AudioCodec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MPEG-1/2 Layer III (and the MPEG audio layers the decoder takes with it).
    case mp3
    /// AAC (AAC-LC, `mp4a.40.2`), in ADTS or MP4 (fragmented MP4 in HLS).
    case aac
    /// Opus.
    case opus

    /// `mp3`, `aac` or `opus`.
    public var description: String { rawValue }
}

/// How an audio stream is delivered.
public enum AudioDelivery: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One file over HTTP.
    case progressive
    /// An HLS playlist of segments.
    case hls

    /// `progressive` or `hls`.
    public var description: String { rawValue }
}

/// What this engine can play, for a service client choosing among a track's renditions.
///
/// MPEG audio goes to libmpg123; AAC (ADTS, MP4, HLS in MPEG-TS or fragmented MP4 with
/// `EXT-X-MAP`) and Opus go to FFmpeg's libraries. Every codec here plays in every delivery; a
/// client asks rather than assumes, so that a codec added later (or one a build lacks) is
/// chosen or skipped by this answer alone.
public enum PlayableFormats {
    /// The codecs the engine decodes, whatever the delivery.
    public static let decodedCodecs: Set<AudioCodec> = [.mp3, .aac, .opus]

    /// Whether the engine can play `codec` delivered as `delivery`: MP3, AAC and Opus, as one
    /// file or in HLS.
    public static func canPlay(_ codec: AudioCodec, delivery: AudioDelivery) -> Bool {
        switch delivery {
        case .progressive, .hls: decodedCodecs.contains(codec)
        }
    }
}

extension Player {
    /// Whether this engine can play `codec` delivered as `delivery` (see
    /// ``PlayableFormats/canPlay(_:delivery:)``): MP3, AAC and Opus, as files or in HLS.
    public static func canPlay(_ codec: AudioCodec, delivery: AudioDelivery) -> Bool {
        PlayableFormats.canPlay(codec, delivery: delivery)
    }
}
