/// An HLS playlist (RFC 8216): a master playlist naming variants, or a media playlist naming
/// segments.
enum HLSPlaylist: Sendable, Equatable {
    /// A media playlist: the segments of one stream.
    case media(HLSMediaPlaylist)
    /// A master playlist: the same content at several bit rates, one playlist URL each.
    case master([HLSVariant])
}

/// One entry of a master playlist (EXT-X-STREAM-INF and the URI after it).
struct HLSVariant: Sendable, Equatable {
    /// The absolute URL of the variant's media playlist.
    var url: String
    /// BANDWIDTH: the peak bit rate, in bits per second.
    var bandwidth: Int
    /// AVERAGE-BANDWIDTH, in bits per second, when given.
    var averageBandwidth: Int?
    /// CODECS, one RFC 6381 codec string each ("mp4a.40.34"); empty when not given.
    var codecs: [String]
}

/// EXT-X-PLAYLIST-TYPE.
enum HLSPlaylistType: Sendable, Equatable {
    /// The playlist is complete and will not change.
    case vod
    /// Segments are only ever appended.
    case event
}

/// A media playlist: its segments and what says whether more are coming.
struct HLSMediaPlaylist: Sendable, Equatable {
    /// EXT-X-TARGETDURATION: the longest segment, in seconds (the reload interval of a live
    /// playlist).
    var targetDuration: Double
    /// EXT-X-MEDIA-SEQUENCE: the sequence number of the first segment.
    var mediaSequence: Int
    /// The segments, in playing order.
    var segments: [HLSSegment]
    /// Whether EXT-X-ENDLIST was present: no segment will be added.
    var hasEndList: Bool
    /// EXT-X-PLAYLIST-TYPE, when given.
    var playlistType: HLSPlaylistType?

    /// VOD: ENDLIST present, or PLAYLIST-TYPE:VOD. Otherwise live (reloaded).
    var isComplete: Bool {
        hasEndList || playlistType == .vod
    }

    /// The sum of the segment durations, in seconds.
    var totalDuration: Double {
        segments.reduce(0) { $0 + $1.duration }
    }

    /// Index of the segment containing `seconds` from the start and that segment's start time
    /// (clamped to the playlist).
    ///
    /// A time exactly on a boundary belongs to the later segment; a time before the start gives
    /// the first segment, one past the end the last. An empty playlist gives `(0, 0)`, which
    /// names no segment.
    func segmentIndex(at seconds: Double) -> (index: Int, start: Double) {
        // Also NaN: the start.
        guard seconds > 0 else { return (0, 0) }
        var start = 0.0
        for (index, segment) in segments.enumerated() {
            // Summed the same way as startTime(ofSegment:), so the two agree to the bit.
            let end = start + segment.duration
            if seconds < end || index == segments.count - 1 { return (index, start) }
            start = end
        }
        return (0, 0)
    }

    /// Start time of segment at `index` (sum of the durations before it).
    ///
    /// An index past the end gives the total duration; a negative one, 0.
    func startTime(ofSegment index: Int) -> Double {
        segments.prefix(max(index, 0)).reduce(0) { $0 + $1.duration }
    }
}

/// One media segment of an HLS media playlist.
struct HLSSegment: Sendable, Equatable {
    /// The media sequence number (EXT-X-MEDIA-SEQUENCE + index).
    var sequence: Int
    /// The absolute URL (resolved against the playlist URL).
    var url: String
    /// The EXTINF duration, in seconds.
    var duration: Double
    /// EXT-X-BYTERANGE: the part of `url` that is this segment, offset resolved; nil for the
    /// whole resource.
    var byteRange: HLSByteRange?
    /// The key the segment is encrypted with; nil when unencrypted (no key, or METHOD=NONE).
    var key: HLSKey?
    /// Whether an EXT-X-DISCONTINUITY came right before it (a new stream starts here).
    var discontinuity: Bool
    /// The EXT-X-MAP in force (an fMP4 initialization section), if any.
    var initializationMap: HLSInitializationMap?
}

/// An EXT-X-MAP: where the initialization section the segments after it need is.
struct HLSInitializationMap: Sendable, Equatable {
    /// The absolute URI.
    var url: String
    /// Its BYTERANGE: the part of `url` that is the section (a stream kept in one file, as
    /// `ffmpeg -hls_flags single_file` and Apple's byte-range packaging make); nil for the
    /// whole resource.
    var byteRange: HLSByteRange?
}

/// A sub-range of a resource, in bytes (EXT-X-BYTERANGE).
struct HLSByteRange: Sendable, Equatable {
    /// The first byte, from the start of the resource.
    var offset: Int
    /// The number of bytes (at least 1).
    var length: Int
}

/// An AES-128 key (EXT-X-KEY with METHOD=AES-128).
struct HLSKey: Sendable, Equatable {
    /// The absolute key URI.
    var url: String
    /// The 16 bytes of IV=0x..., nil when absent.
    var iv: [UInt8]?

    /// The IV to use for the segment with media sequence number `sequence`: `iv`, or the
    /// media sequence number as a 128-bit big-endian integer (RFC 8216 5.2).
    func initializationVector(sequence: Int) -> [UInt8] {
        if let iv { return iv }
        // The parser keeps sequence numbers non-negative: the upper 8 bytes are always zero.
        let value = UInt64(truncatingIfNeeded: sequence)
        return [UInt8](repeating: 0, count: 8) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
