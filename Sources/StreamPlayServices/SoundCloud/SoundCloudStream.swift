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
    /// Progressive (one MP3 file) or HLS (a playlist of MP3 segments).
    public var format: StreamFormat
    /// The rendition chosen (`http_mp3_128`, `hls_mp3_128`, `preview_mp3_128`).
    public var rendition: String
    /// When the signed URL stops working (its `Expires` parameter), if it says.
    public var expiresAt: Date?
    /// Whether this is a preview clip rather than the whole track.
    public var isPreview: Bool
    /// The track's URN.
    public var trackURN: String
    /// The track's title.
    public var title: String
    /// The track's length in seconds, if known (a preview is shorter).
    public var duration: Double?

    /// A stream.
    public init(url: String, format: StreamFormat, rendition: String, expiresAt: Date?, isPreview: Bool,
                trackURN: String, title: String, duration: Double?) {
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

    /// Title, rendition and the URL without its signature.
    public var description: String {
        "SoundCloudStream(\"\(title)\", \(rendition), \(format)\(isPreview ? ", preview" : ""), \(RedactedURL.describe(url)))"
    }
}
