import FoundationEssentials
import Logging
import StreamPlay

/// Turns a link into what to play: a SoundCloud page, URN or API URL becomes a signed CDN URL
/// of the best rendition the engine can play (AAC HLS once the engine plays it, then MP3 HLS,
/// then progressive MP3; a preview only when allowed, and flagged as one, with the reason) that
/// is re-signed when it expires; a
/// Spotify track becomes its 30-second preview MP3 where Spotify still gives one (full tracks
/// play only in Spotify's own DRM player); a plain URL or path plays as it is.
///
/// A service client that has no session signs in with client credentials when it has a
/// secret (enough for public tracks); otherwise the error says to run `streamplay login`.
public struct StreamResolver: Sendable {
    /// The SoundCloud client, if SoundCloud is configured.
    public let soundCloud: SoundCloudClient?
    /// The Spotify client, if Spotify is configured.
    public let spotify: SpotifyClient?
    private let logger: Logger

    /// A resolver for the services given (nil: links of that service are refused with
    /// ``ResolverError/serviceUnavailable(_:reason:)``).
    public init(soundCloud: SoundCloudClient? = nil, spotify: SpotifyClient? = nil,
                logger: Logger = Logger(label: "streamplay.resolver")) {
        self.soundCloud = soundCloud
        self.spotify = spotify
        self.logger = logger
    }

    /// What `link` plays.
    /// - Parameters:
    ///   - link: a service link (an https link of the service, or its URI scheme).
    ///   - allowPreview: accept a preview when that is all a service gives (SoundCloud
    ///     preview-only tracks, Spotify tracks); otherwise that is a ``ResolverError/notPlayable(_:reason:)``.
    public func resolve(_ link: String, allowPreview: Bool = true) async throws(ResolverError) -> ResolvedStream {
        let parsed = try ServiceLink(parsing: link)
        logger.debug("resolving", metadata: ["link": "\(parsed)"])
        switch parsed {
        case .direct(let target):
            return ResolvedStream(url: target, format: Self.format(of: target))
        case .soundCloudPage(let page):
            let client = try await session(soundCloud, .soundcloud)
            let resource: SoundCloudResource
            do {
                resource = try await client.resolve(page)
            } catch {
                throw Self.failure(error, .soundcloud)
            }
            let track: SoundCloudTrack
            switch resource {
            case .track(let found): track = found
            case .user(let user): throw .unsupportedLink(parsed.description, reason: "it is the user \(user.username), not a track")
            case .playlist(let playlist):
                throw .unsupportedLink(parsed.description, reason: "it is the playlist \(playlist.title), not a track")
            case .other(let kind, _): throw .unsupportedLink(parsed.description, reason: "it is a \(kind), not a track")
            }
            return try await soundCloudStream(track.urn, client: client, allowPreview: allowPreview)
        case .soundCloudTrack(let urn):
            let client = try await session(soundCloud, .soundcloud)
            return try await soundCloudStream(urn, client: client, allowPreview: allowPreview)
        case .spotifyTrack(let id):
            let client = try await session(spotify, .spotify)
            let track: SpotifyTrack
            do {
                track = try await client.track(id)
            } catch {
                throw Self.failure(error, .spotify)
            }
            guard let preview = track.previewURL else {
                throw .notPlayable("spotify:track:\(id)", reason: "Spotify plays full tracks only in its own player; this track has no preview")
            }
            guard allowPreview else {
                throw .notPlayable("spotify:track:\(id)", reason: "Spotify gives only a 30-second preview outside its own player")
            }
            return ResolvedStream(url: preview, format: .progressive, title: track.name, duration: nil, service: .spotify,
                                  isPreview: true, previewReason: "Spotify gives a 30-second preview outside its own player")
        }
    }

    private func soundCloudStream(_ urn: String, client: SoundCloudClient, allowPreview: Bool) async throws(ResolverError) -> ResolvedStream {
        let stream: SoundCloudStream
        do {
            stream = try await client.stream(forTrack: urn, allowPreview: allowPreview)
        } catch {
            throw Self.failure(error, .soundcloud)
        }
        let rendition = stream.rendition
        // The signed URL lives minutes: a resumed request refused with 403 asks for a new one.
        let refresher: URLRefresher = { _ in
            try await client.refreshedStreamURL(forTrack: urn, rendition: rendition)
        }
        return ResolvedStream(url: stream.url, expiresAt: stream.expiresAt, format: stream.format, title: stream.title,
                              duration: stream.duration, service: .soundcloud, isPreview: stream.isPreview,
                              previewReason: stream.previewReason, refresher: refresher)
    }

    /// `client`, signed in: a session from the store, or client credentials.
    private func session<Client: ServiceClient>(_ client: Client?, _ service: StreamingService) async throws(ResolverError) -> Client {
        guard let client else { throw .serviceUnavailable(service, reason: "not configured (no client id)") }
        if await client.oauth.isAuthenticated { return client }
        guard client.oauth.configuration.clientSecret != nil else {
            throw .serviceUnavailable(service, reason: "not signed in: run `streamplay login \(service)`")
        }
        do {
            try await client.oauth.authenticateWithClientCredentials()
        } catch {
            throw .service(service, description: error.description)
        }
        return client
    }

    private static func failure(_ error: any Error, _ service: StreamingService) -> ResolverError {
        if let error = error as? SoundCloudError {
            switch error {
            case .notPlayableYet, .previewOnly, .noStream, .blocked, .drmProtected:
                return .notPlayable("", reason: error.description)
            default: break
            }
        }
        return .service(service, description: "\(error)")
    }

    /// HLS for a path ending in .m3u8, else progressive.
    static func format(of link: String) -> StreamFormat {
        let path = link.prefix { $0 != "?" && $0 != "#" }
        return path.lowercased().hasSuffix(".m3u8") ? .hls : .progressive
    }
}

/// A service client the resolver can sign in: it has an ``OAuth2Client``.
public protocol ServiceClient: Sendable {
    /// The client's OAuth 2 session.
    var oauth: OAuth2Client { get }
}

extension SoundCloudClient: ServiceClient {}
extension SpotifyClient: ServiceClient {}
