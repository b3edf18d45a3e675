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

/// What this engine can play today, for a service client choosing among a track's renditions.
///
/// The answer is the decoder's: MPEG audio only, as one file or as HLS segments. AAC is not
/// playable yet, neither as a file nor in HLS (fragmented MP4 with `EXT-X-MAP`, or ADTS
/// segments): a client should skip an AAC rendition for an MP3 one while ``canPlay(_:delivery:)``
/// says so, and take AAC first on its own once a release of the engine decodes it. Opus is not
/// playable either.
public enum PlayableFormats {
    /// The codecs the engine decodes, whatever the delivery.
    public static let decodedCodecs: Set<AudioCodec> = [.mp3]

    /// Whether the engine can play `codec` delivered as `delivery`: true for MP3, progressive
    /// or in HLS; false for AAC (not playable yet, in a file or in HLS) and Opus.
    public static func canPlay(_ codec: AudioCodec, delivery: AudioDelivery) -> Bool {
        switch delivery {
        case .progressive, .hls: decodedCodecs.contains(codec)
        }
    }
}

extension Player {
    /// Whether this engine can play `codec` delivered as `delivery` (see
    /// ``PlayableFormats/canPlay(_:delivery:)``): MP3 yes; AAC, in HLS or not, not yet.
    public static func canPlay(_ codec: AudioCodec, delivery: AudioDelivery) -> Bool {
        PlayableFormats.canPlay(codec, delivery: delivery)
    }
}
