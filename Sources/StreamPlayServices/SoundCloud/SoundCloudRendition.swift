import StreamPlay

/// What a rendition's name in `GET /tracks/URN/streams` says about it: `hls_aac_160` is AAC in
/// HLS at 160 kbit/s, `http_mp3_128` a progressive MP3, `preview_mp3_128` a preview clip,
/// `ctr-encrypted-hls` and `cbc-encrypted-hls` DRM-encrypted HLS (Widevine, FairPlay).
///
/// Names the API may add are read the same way; one whose codec it does not name has a nil
/// ``codec`` and is never taken as playable.
public struct SoundCloudRendition: Sendable, Hashable, CustomStringConvertible {
    /// The name, the answer's key without `_url`.
    public var name: String
    /// The codec the name says, if it names one.
    public var codec: AudioCodec?
    /// HLS when the name says `hls`, else progressive.
    public var delivery: AudioDelivery
    /// The bit rate in kbit/s the name ends with, if any.
    public var bitrate: Int?
    /// A preview clip (`preview_*`), not the whole track.
    public var isPreview: Bool
    /// Encrypted with DRM (`*-encrypted-hls`): no third-party player can play it.
    public var isEncrypted: Bool

    /// The rendition a name describes.
    public init(name: String) {
        self.name = name
        let words = name.lowercased().split { $0 == "_" || $0 == "-" }.map(String.init)
        codec = words.lazy.compactMap(AudioCodec.init(rawValue:)).first
        delivery = words.contains("hls") ? .hls : .progressive
        bitrate = words.last.flatMap { Int($0) }
        isPreview = words.first == "preview"
        isEncrypted = words.contains("encrypted")
    }

    /// The stream format of the rendition: HLS or progressive.
    public var format: StreamFormat { delivery == .hls ? .hls : .progressive }

    /// Whether the engine can play it today (`PlayableFormats` in StreamPlay): a clear rendition
    /// of a codec the engine decodes. AAC in HLS is not playable yet; once it is, it comes first.
    public var isPlayable: Bool {
        guard !isEncrypted, let codec else { return false }
        return PlayableFormats.canPlay(codec, delivery: delivery)
    }

    /// How good a choice it is, smaller first: full tracks before previews; AAC, then MP3, then
    /// others; higher bit rates first; HLS before progressive (SoundCloud marks the progressive
    /// MP3 deprecated). So: `hls_aac_160`, `hls_mp3_128`, `http_mp3_128`, `preview_mp3_128`.
    var rank: [Int] {
        let codecRank = switch codec {
        case .aac: 0
        case .mp3: 1
        case .opus: 2
        case nil: 3
        }
        return [isPreview ? 1 : 0, codecRank, -(bitrate ?? 0), delivery == .hls ? 0 : 1]
    }

    /// Whether `self` is a better choice than `other` (by ``rank``, then by name).
    func isBetter(than other: SoundCloudRendition) -> Bool {
        rank == other.rank ? name < other.name : rank.lexicographicallyPrecedes(other.rank)
    }

    /// The name.
    public var description: String { name }
}
