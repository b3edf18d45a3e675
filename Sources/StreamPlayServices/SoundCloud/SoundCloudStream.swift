import FoundationEssentials
import StreamPlay

/// A stream to play: a signed CDN URL and what is known about it.
///
/// The URL carries its own signature and expires within minutes; it must be fetched WITHOUT an
/// Authorization header. When it expires mid-track, ``SoundCloudClient/refreshedStreamURL(forTrack:rendition:)``
/// signs a new one (see ``SoundCloudClient/urlRefresher(for:)``).
public struct SoundCloudStream: Sendable, Equatable, CustomStringConvertible {
    /// The signed CDN URL. Contains a signature: log it only through `RedactedURL`.
    public var url: String
    /// Progressive (one file) or HLS (a playlist of segments).
    public var format: StreamFormat
    /// The rendition chosen (`hls_aac_160` once the engine plays AAC, `hls_mp3_128`,
    /// `http_mp3_128`, `preview_mp3_128`).
    public var rendition: String
    /// When the signed URL stops working (its `Expires` parameter), if it says.
    public var expiresAt: Date?
    /// Whether this is a preview clip rather than the whole track.
    public var isPreview: Bool
    /// Why it is taken for a preview (the `preview` access, the preview rendition, a
    /// `/preview/` path on the CDN, a playlist far shorter than the track); nil for the whole
    /// track.
    public var previewReason: String?
    /// The track's URN.
    public var trackURN: String
    /// The track's title.
    public var title: String
    /// The track's length in seconds, if known (a preview is shorter).
    public var duration: Double?

    /// A stream.
    public init(url: String, format: StreamFormat, rendition: String, expiresAt: Date?, isPreview: Bool,
                trackURN: String, title: String, duration: Double?, previewReason: String? = nil) {
        self.previewReason = isPreview ? previewReason ?? "a preview rendition" : nil
        self.url = url
        self.format = format
        self.rendition = rendition
        self.expiresAt = expiresAt
        self.isPreview = isPreview
        self.trackURN = trackURN
        self.title = title
        self.duration = duration
    }

    /// How far from now an `Expires` may be to be believed: a signed URL lives minutes, so a
    /// date decades away (or not a number at all) is not an expiry.
    static let plausibleExpiry: Double = 10 * 365 * 86400

    /// The `Expires` query parameter of a signed URL (Unix seconds, possibly with a fraction),
    /// or nil when there is none or it is not a finite time within ten years of now.
    public static func expiry(of url: String) -> Date? {
        guard let query = url.firstIndex(of: "?") else { return nil }
        let fields = FormEncoding.decode(url[url.index(after: query)...].prefix { $0 != "#" })
        guard let text = fields.first(where: { $0.0 == "Expires" })?.1, let seconds = Double(text), seconds.isFinite,
              abs(seconds - Date().timeIntervalSince1970) <= plausibleExpiry else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whether a signed CDN URL's path says it is a preview clip: a `preview` path segment
    /// (`/preview/...`, as SoundCloud's CDN serves snippets) or a file named `preview...`.
    public static func hasPreviewPath(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        let afterScheme = path.firstRange(of: "://").map { path[$0.upperBound...] } ?? path[...]
        let segments = afterScheme.split(separator: "/").dropFirst().map { $0.lowercased() }
        return segments.contains { $0 == "preview" || $0 == "previews" || $0.hasPrefix("preview.") }
    }

    /// Title, rendition and the URL without its signature.
    public var description: String {
        "SoundCloudStream(\"\(title)\", \(rendition), \(format)\(isPreview ? ", preview" : ""), \(RedactedURL.describe(url)))"
    }
}
