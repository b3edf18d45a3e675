import StreamPlay

/// A track's stream renditions (`GET /tracks/URN/streams`): rendition name to the API URL that
/// redirects to a signed CDN URL.
///
/// Names drop the `_url` suffix of the answer's keys: `hls_aac_160`, `hls_mp3_128`,
/// `http_mp3_128`, `preview_mp3_128` (the keys today's OpenAPI lists), and any other the
/// answer has (`ctr-encrypted-hls`, ...). Unknown members and nulls are never an error.
public struct SoundCloudStreams: Sendable, Equatable {
    /// The renditions: name to API URL (these need the OAuth header; treat them as opaque).
    public var renditions: [String: String]

    /// Renditions given by name.
    public init(renditions: [String: String]) {
        self.renditions = renditions
    }

    /// The renditions of a `/streams` answer (`{"hls_aac_160_url": URL, ...}`); null values and
    /// members that are not strings are skipped.
    public init(json: JSON) {
        var renditions: [String: String] = [:]
        for (key, value) in json.object ?? [:] {
            guard let url = value.string, !url.isEmpty else { continue }
            let name = key.hasSuffix("_url") ? String(key.dropLast(4)) : key
            renditions[name] = url
        }
        self.renditions = renditions
    }

    /// The rendition names, sorted.
    public var names: [String] { renditions.keys.sorted() }

    /// The clear (not encrypted) renditions, best first: `hls_aac_160`, `hls_mp3_128`,
    /// `http_mp3_128`, then `preview_mp3_128` (see ``SoundCloudRendition``), whether the engine
    /// can play them or not.
    public var preferred: [SoundCloudRendition] {
        renditions.keys.map(SoundCloudRendition.init(name:)).filter { !$0.isEncrypted }
            .sorted { $0.isBetter(than: $1) }
    }

    /// The renditions the engine can play today, best first: ``preferred`` without those
    /// `PlayableFormats` refuses (AAC in HLS, for now).
    public var playableNames: [String] { preferred.filter(\.isPlayable).map(\.name) }

    /// The full-track renditions the engine can play, best first.
    public var fullTrack: [String] { preferred.filter { $0.isPlayable && !$0.isPreview }.map(\.name) }

    /// The preview renditions the engine can play.
    public var previews: [String] { preferred.filter { $0.isPlayable && $0.isPreview }.map(\.name) }

    /// The DRM-encrypted renditions (`ctr-encrypted-hls`, `cbc-encrypted-hls`), sorted.
    public var encrypted: [String] { names.filter { SoundCloudRendition(name: $0).isEncrypted } }

    /// The stream format of a rendition name: HLS for `hls_*` (or a name with `hls`), otherwise
    /// progressive.
    public static func format(of rendition: String) -> StreamFormat {
        SoundCloudRendition(name: rendition).format
    }
}
