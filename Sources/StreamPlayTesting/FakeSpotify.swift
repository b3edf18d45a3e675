import FoundationEssentials
import StreamPlay
import StreamPlayServices
import Synchronization

/// Spotify in memory: its accounts service (`accounts.spotify.com`), Web API
/// (`api.spotify.com/v1`) and preview CDN (`p.scdn.co`), as routes of an
/// ``InMemoryHTTPTransport``, answering as Spotify's Web API reference and the project's
/// stand-in servers do.
///
/// ```swift
/// let spotify = FakeSpotify()
/// let client = SpotifyClient(configuration: spotify.configuration, http: spotify.transport)
/// let request = try await client.makeAuthorizationRequest()
/// try await client.completeAuthorization(request, redirect: spotify.authorize(request))
/// let me = try await client.me()
/// ```
///
/// - Tokens: `POST /api/token` with client credentials (a confidential client only, no refresh
///   token), authorization code (HTTP Basic or body credentials, or a public client with PKCE),
///   refresh (a public client's refresh token is single-use; a confidential client keeps its
///   own, as Spotify answers no new one).
/// - Web API (`Authorization: Bearer TOKEN`, else Spotify's `{"error": {status, message}}`; an
///   expired token, see ``FakeOAuthService/expireAccessTokens()``, 401 "The access token expired"):
///   `GET /v1/me` (a user's token only; `country`, `product`, `explicit_content` with scope
///   `user-read-private`, `email` with `user-read-email`, none of them in
///   ``omitsRestrictedUserFields`` mode), `GET /v1/tracks/{id}`, `GET /v1/search` (type
///   `track`; `limit` 0 to 10, default 5, as in Development Mode since February 2026).
///
/// Fixtures, as the stand-ins': `0StrmPlyPreviewTrack01` "Preview Track" (30 s, with a
/// `preview_url`) and `0StrmPlyNoPreviewTrk01` "No Preview Track" (45 s, `preview_url` null).
public final class FakeSpotify: FakeOAuthService {
    /// Spotify.
    public static let service = StreamingService.spotify
    /// The client id the fake accepts.
    public static let clientID = "sp-test-client"
    /// The client secret the fake accepts.
    public static let clientSecret = "sp-test-secret"
    /// The accounts (sign-in and token) host.
    public static let accountsHost = "accounts.spotify.com"
    /// The Web API host.
    public static let apiHost = "api.spotify.com"
    /// The host of preview MP3s.
    public static let cdnHost = "p.scdn.co"
    /// The user a sign-in is for unless told otherwise.
    public static let defaultUser = "streamplay-tester"
    /// `expires_in` of the tokens.
    public static let tokenLifetime = 3600

    /// The transport the fake answers on.
    public let transport: InMemoryHTTPTransport
    /// The fake's codes and tokens.
    public let tokenAuthority = FakeTokenAuthority(prefix: "sp")
    private let restricted = Mutex(false)

    /// The fake, its routes added to `transport`.
    public init(transport: InMemoryHTTPTransport = InMemoryHTTPTransport()) {
        self.transport = transport
        installRoutes()
    }

    /// Whether `/v1/me` leaves out `country`, `email`, `explicit_content`, `followers` and
    /// `product`, as it does for Development Mode apps since February 2026 (false: as the
    /// stand-in servers answer).
    public var omitsRestrictedUserFields: Bool {
        get { restricted.withEngineLock { $0 } }
        set { restricted.withEngineLock { $0 = newValue } }
    }

    /// Answers the next `count` Web API requests whose path starts with `pathPrefix` with 429,
    /// `Retry-After: retryAfter` and Spotify's error object.
    public func rateLimitNext(_ count: Int = 1, retryAfter: Double, pathPrefix: String = "/v1/") {
        let body: JSON = ["error": ["status": 429, "message": "API rate limit exceeded"]]
        failAPIRequests(count, status: 429, retryAfter: retryAfter, pathPrefix: pathPrefix, body: body)
    }

    /// The tracks: id, name, length in milliseconds, whether it has a preview.
    static let tracks: [(id: String, name: String, duration: Int, preview: Bool)] = [
        ("0StrmPlyPreviewTrack01", "Preview Track", 30000, true),
        ("0StrmPlyNoPreviewTrk01", "No Preview Track", 45000, false),
    ]
}
