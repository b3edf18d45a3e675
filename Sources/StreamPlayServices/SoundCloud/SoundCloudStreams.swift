/// A track's stream renditions (`GET /tracks/URN/streams`): rendition name to the API URL that
/// redirects to a signed CDN URL.
///
/// Names drop the `_url` suffix of the answer's keys: `http_mp3_128`, `hls_mp3_128`,
/// `hls_aac_160`, `preview_mp3_128`.
public struct SoundCloudStreams: Sendable, Equatable {
    /// The renditions: name to API URL (these need the OAuth header; treat them as opaque).
    public var renditions: [String: String]

    /// Renditions given by name.
    public init(renditions: [String: String]) {
        self.renditions = renditions
    }

    /// The renditions of a `/streams` answer (`{"http_mp3_128_url": URL, ...}`); null values and
    /// other members are skipped.
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

    /// Renditions StreamPlay can play, best first: progressive MP3 before MP3 HLS, full tracks
    /// before previews.
    public var playableNames: [String] {
        let mp3 = names.filter { $0.contains("mp3") }
        func rank(_ name: String) -> Int {
            (name.hasPrefix("preview") ? 10 : 0) + (name.hasPrefix("hls") ? 1 : 0)
        }
        return mp3.sorted { (rank($0), $0) < (rank($1), $1) }
    }

    /// The full-track MP3 renditions, best first.
    public var fullTrackMP3: [String] { playableNames.filter { !$0.hasPrefix("preview") } }

    /// The preview MP3 renditions.
    public var previewMP3: [String] { playableNames.filter { $0.hasPrefix("preview") } }

    /// The stream format of a rendition name: HLS for `hls_*`, otherwise progressive.
    public static func format(of rendition: String) -> StreamFormat {
        rendition.hasPrefix("hls") ? .hls : .progressive
    }
}
