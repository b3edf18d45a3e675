import FoundationEssentials
import StreamPlay

/// What a link resolved to: everything the Player needs to play it, and what to show.
public struct ResolvedStream: Sendable, CustomStringConvertible {
    /// The URL to open (for services, a signed CDN URL that expires).
    public var url: String
    /// Headers the request needs (none for today's services: their CDNs take signed URLs and
    /// refuse an Authorization header).
    public var requestHeaders: HTTPHeaders
    /// When ``url`` stops working, if known.
    public var expiresAt: Date?
    /// Progressive file or HLS playlist.
    public var format: StreamFormat
    /// The track's title, when the service said.
    public var title: String?
    /// The track's length in seconds, when the service said.
    public var duration: Double?
    /// The service it came from (nil: a direct link).
    public var service: StreamingService?
    /// Whether this is only a preview (a 30-second excerpt) of the track.
    public var isPreview: Bool
    /// Why it is a preview (the service allows only one, a preview rendition, a snippet found
    /// on the CDN); nil for the whole track.
    public var previewReason: String?
    /// Gives a fresh URL when ``url`` has expired: the Player's URL refresher hook. The Player
    /// asks it whenever the server answers 403 or 410: at the first request (a URL that expired
    /// before playback started), when a dropped stream is resumed, and, for HLS, when the
    /// playlist or a segment is refused. Nil when the URL does not expire.
    public var refresher: URLRefresher?

    /// A resolved stream.
    public init(url: String, requestHeaders: HTTPHeaders = [:], expiresAt: Date? = nil, format: StreamFormat,
                title: String? = nil, duration: Double? = nil, service: StreamingService? = nil, isPreview: Bool = false,
                previewReason: String? = nil, refresher: URLRefresher? = nil) {
        self.previewReason = isPreview ? previewReason : nil
        self.url = url
        self.requestHeaders = requestHeaders
        self.expiresAt = expiresAt
        self.format = format
        self.title = title
        self.duration = duration
        self.service = service
        self.isPreview = isPreview
        self.refresher = refresher
    }

    /// Whole seconds until ``expiresAt`` (0 once passed), or nil when it is not known. Clamped,
    /// so a date a server put centuries away (or a non-finite one) cannot trap.
    public var secondsUntilExpiry: Int? {
        guard let expiresAt else { return nil }
        let left = expiresAt.timeIntervalSinceNow
        guard !left.isNaN else { return nil }
        return Int(min(max(left, 0), Self.longestTime).rounded())
    }

    /// The largest number of seconds shown (about 31 years); larger values are clamped to it.
    static let longestTime: Double = 1e9

    /// The URL without its query (where signatures are), and what is known about the stream.
    public var description: String {
        var parts = [url.contains("://") ? RedactedURL.describe(url) : url, "format \(format)"]
        if let service { parts.append("service \(service)") }
        if let title { parts.append("title \"\(title)\"") }
        if let duration, duration.isFinite { parts.append("duration \(Int(min(max(duration, 0), Self.longestTime).rounded())) s") }
        if let secondsUntilExpiry { parts.append("expires in \(secondsUntilExpiry) s") }
        if isPreview { parts.append("preview" + (previewReason.map { " (\($0))" } ?? "")) }
        return parts.joined(separator: ", ")
    }
}
