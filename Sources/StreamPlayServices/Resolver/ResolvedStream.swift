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
    /// Gives a fresh URL when ``url`` has expired (the Player's URL refresher hook: it asks on
    /// a 403 or 410 when a dropped stream is resumed). Nil when the URL does not expire.
    public var refresher: (@Sendable (String) async throws -> String)?

    /// A resolved stream.
    public init(url: String, requestHeaders: HTTPHeaders = [:], expiresAt: Date? = nil, format: StreamFormat,
                title: String? = nil, duration: Double? = nil, service: StreamingService? = nil, isPreview: Bool = false,
                refresher: (@Sendable (String) async throws -> String)? = nil) {
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

    /// The URL without its query (where signatures are), and what is known about the stream.
    public var description: String {
        var parts = [url.contains("://") ? RedactedURL.describe(url) : url, "format \(format)"]
        if let service { parts.append("service \(service)") }
        if let title { parts.append("title \"\(title)\"") }
        if let duration { parts.append("duration \(Int(duration.rounded())) s") }
        if let expiresAt { parts.append("expires in \(max(0, Int(expiresAt.timeIntervalSinceNow))) s") }
        if isPreview { parts.append("preview") }
        return parts.joined(separator: ", ")
    }
}
