import Crypto
import FoundationEssentials
import Logging
import StreamPlay

/// A client of Spotify's accounts service and Web API: sign-in, sessions, track metadata,
/// previews, and control of the user's Spotify Connect player.
///
/// What it can play, plainly: Spotify streams full tracks only through its own DRM-protected
/// player, which is out of StreamPlay's scope. This client *controls* that player (on the
/// user's phone, computer or speaker) over the Web API's player endpoints, as the old iOS
/// SDK's `SPTAudioStreamingController` did, and hands StreamPlay's Player a track's
/// `preview_url` (a plain 30-second MP3) where Spotify still gives one (``previewStream(forTrack:)``).
///
/// - Sign-in: authorization code with PKCE (S256) and `state`; a public client without a
///   client secret, HTTP Basic with one; `show_dialog` on request. Loopback redirects must use
///   `http://127.0.0.1:PORT/...`: Spotify refuses `localhost`, and so does this client, before
///   the browser is opened.
/// - With ``ServiceConfiguration/tokenSwapURL`` and ``ServiceConfiguration/tokenRefreshURL``
///   (the SDK's token swap and refresh service, a server of the app's own that holds the
///   secret), the code is exchanged there and refreshes go there, with no client credentials;
///   the refresh token is then the service's own. Such a service in the seed's style forwards
///   only `code`, and Spotify refuses a code issued for a PKCE challenge without its verifier:
///   so no challenge is sent unless ``ServiceConfiguration/tokenSwapForwardsCodeVerifier`` says
///   the service forwards `code_verifier` (then it is sent to the service with the code).
/// - Sessions last an hour and are renewed with the refresh token, before expiry and once on a
///   401 ("The access token expired"), replaying the request. A refresh token that was revoked
///   or expired (`invalid_grant`) ends the session: the stored token is removed and
///   ``SpotifyError/sessionExpired(description:)`` is thrown.
/// - API errors become typed ``SpotifyError``s; 429 is retried after Retry-After and 5xx with
///   backoff, per ``retryPolicy``.
public actor SpotifyClient {
    /// The OAuth 2 session (tokens, refresh, events).
    public nonisolated let oauth: OAuth2Client
    /// The service's endpoints and app registration.
    public nonisolated let configuration: ServiceConfiguration
    /// How 429 and 5xx answers are retried.
    public nonisolated let retryPolicy: ServiceRetryPolicy
    private nonisolated let store: (any TokenStore)?
    private nonisolated let account: String
    nonisolated let logger: Logger

    /// A client; a session stored for `account` is taken up at once.
    /// - Parameters:
    ///   - configuration: endpoints, client id, scopes; without a client secret the client is
    ///     public (PKCE only), with one it authenticates with HTTP Basic; a token swap URL
    ///     sends code exchanges and refreshes to the app's own service instead.
    ///   - http: the transport: by default a `CurlHTTPClient` (the engine's libcurl settings); in
    ///     tests, an in-memory one.
    ///   - store: where the session is kept between runs (none: in this object only); the app's
    ///     own client-credentials token is cached there too, under `ACCOUNT-app` (see
    ///     ``AppTokenCache``).
    ///   - account: the name the session is stored under.
    ///   - logger: where requests and sign-ins are logged (never a token).
    ///   - retryPolicy: how answers that say "not now" (429, 5xx) are retried.
    public init(configuration: ServiceConfiguration, http: any HTTPTransport = CurlHTTPClient(), store: (any TokenStore)? = nil,
                account: String = "spotify", logger: Logger = Logger(label: "streamplay.spotify"),
                retryPolicy: ServiceRetryPolicy = ServiceRetryPolicy()) {
        self.configuration = configuration
        self.store = store
        self.account = account
        self.logger = logger
        self.retryPolicy = retryPolicy
        // The app's own token (client credentials, for track lookups without a user) is cached
        // beside the user's and shared by processes, as SoundCloud's: no grant per run.
        oauth = OAuth2Client(configuration: Self.oauthConfiguration(configuration), http: http, store: store,
                             account: account, logger: logger,
                             appTokenCache: store.map { AppTokenCache(store: $0, account: AppTokenCache.account(for: account)) })
        if configuration.tokenSwapURL != nil, configuration.tokenRefreshURL == nil {
            logger.warning("a token swap URL without a token refresh URL: the session cannot be renewed after an hour")
        }
    }

    /// The OAuth 2 settings: Spotify's token endpoint, or the app's swap and refresh service.
    static func oauthConfiguration(_ configuration: ServiceConfiguration) -> OAuth2Configuration {
        guard let swapURL = configuration.tokenSwapURL else { return configuration.oauth2Configuration() }
        var oauth = configuration.oauth2Configuration(clientAuthentication: .tokenService)
        // The service holds the secret and adds the credentials itself: none leave this process.
        oauth.clientSecret = nil
        oauth.tokenURL = swapURL
        // Without a refresh service, refreshes go to the swap URL, which refuses them.
        oauth.refreshURL = configuration.tokenRefreshURL
        // A swap service in the seed's style forwards only `code`: a code issued for a PKCE
        // challenge would then fail at Spotify, so none is sent unless the service says it
        // forwards `code_verifier`.
        oauth.usesPKCE = configuration.tokenSwapForwardsCodeVerifier
        return oauth
    }

    /// Whether code exchanges and refreshes go to the app's token swap service.
    public nonisolated var usesTokenSwapService: Bool { configuration.tokenSwapURL != nil }

    // MARK: Sign-in

    /// A new sign-in: open the request's `url` in a browser, then pass the redirect to
    /// ``completeAuthorization(_:redirect:)``. Asks for the configuration's scopes, with PKCE
    /// (S256) and a random `state`.
    /// - Parameter showDialog: make Spotify ask the user again even if they approved the app
    ///   before (`show_dialog=true`; lets them switch accounts).
    /// - Throws: ``SpotifyError/invalidRedirectURI(_:reason:)`` for a redirect URI Spotify
    ///   refuses (`localhost`, plain http off 127.0.0.1, none).
    public func makeAuthorizationRequest(showDialog: Bool = false) throws(SpotifyError) -> AuthorizationRequest {
        var settings = oauth.configuration
        try SpotifyRedirectURI.validate(settings.redirectURI)
        if showDialog { settings.extraAuthorizationParameters.append(("show_dialog", "true")) }
        return AuthorizationRequest(configuration: settings)
    }

    /// Checks the redirect of `request` (state, then code or error) and exchanges its code for a
    /// session (at Spotify, or at the token swap service).
    /// - Parameters:
    ///   - request: the authorization the browser was sent to.
    ///   - redirect: the URL the browser was sent back to, or its query.
    /// - Throws: ``SpotifyError/cancelledByUser`` for `error=access_denied`,
    ///   ``SpotifyError/oauth(_:)`` for a state mismatch or a refused exchange.
    @discardableResult
    public func completeAuthorization(_ request: AuthorizationRequest, redirect: String) async throws(SpotifyError) -> SpotifySession {
        do {
            let token = try await oauth.completeAuthorization(request, redirect: redirect)
            logger.info("signed in to Spotify", metadata: ["swap": "\(usesTokenSwapService)"])
            return SpotifySession(token: token)
        } catch {
            throw SpotifyError.from(error)
        }
    }

    // MARK: Session

    /// Whether there is a session (possibly expired but renewable).
    public var isSignedIn: Bool {
        get async { await oauth.isAuthenticated }
    }

    /// The current session, if signed in.
    public func session() async -> SpotifySession? {
        await oauth.currentToken.map(SpotifySession.init(token:))
    }

    /// Takes up a session made elsewhere (restored from a string, or from another device) and
    /// stores it.
    public func restore(_ session: SpotifySession) async {
        await oauth.adopt(session.token)
    }

    /// The current session as an encrypted string (see ``SpotifySession``).
    /// - Throws: ``SpotifyError/notSignedIn`` without a session.
    public nonisolated func sessionString(using key: SymmetricKey) async throws(SpotifyError) -> String {
        // Nonisolated: the key (not Sendable in swift-crypto 3) stays in the caller's isolation.
        guard let session = await session() else { throw .notSignedIn }
        return try session.encryptedString(using: key)
    }

    /// Restores the session in `text` (made by ``sessionString(using:)`` with the same key).
    /// - Throws: ``SpotifyError/invalidSession(reason:)`` for altered text or another key;
    ///   the current session is then left as it was.
    @discardableResult
    public nonisolated func restoreSession(from text: String, using key: SymmetricKey) async throws(SpotifyError) -> SpotifySession {
        let session = try SpotifySession(encryptedString: text, using: key)
        await restore(session)
        return session
    }

    /// Renews the access token now (the SDK's `renewSession`).
    /// - Throws: ``SpotifyError/sessionExpired(description:)`` when the refresh token was
    ///   refused (the session is ended), ``SpotifyError/notSignedIn``.
    @discardableResult
    public func renewSession() async throws(SpotifyError) -> SpotifySession {
        do {
            return SpotifySession(token: try await oauth.refresh())
        } catch {
            throw SpotifyError.from(error)
        }
    }

    /// Signs out: ends the session and removes the stored token. Spotify has no token
    /// revocation endpoint; the user can remove the app's access at spotify.com/account/apps.
    public func logout() async {
        await oauth.signOut()
        do {
            try store?.remove(account: account)
        } catch {
            logger.error("could not remove the stored Spotify session", metadata: ["error": "\(error)"])
        }
    }
}
