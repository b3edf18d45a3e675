import FoundationEssentials
import Logging
import StreamPlay

/// A client of the Spark platform API (sparkapi.com) for one account, after SparkiOS's
/// `SparkAPI` object.
///
/// - Sign-in: OpenID Connect, the documented way today (``makeOpenIDConnectRequest(redirectURI:scopes:)``
///   and ``completeOpenIDConnect(_:redirect:)``: endpoints from the discovery document, the ID
///   token verified against the provider's keys); the seed's Hybrid (OpenID 2.0 with an OAuth 2
///   code, ``makeOpenIDRequest(hybrid:attributes:returnTo:)`` and ``completeOpenID(_:returnURL:)``)
///   and plain OpenID 2.0 (identity and attributes only); or the plain OAuth 2 authorize flow
///   (``makeAuthorizationRequest(redirectURI:)``, ``completeAuthorization(_:redirect:)``). Codes
///   are exchanged with a JSON body that carries the client id and secret, through ``oauth``: at
///   `/v1/oauth2/grant`, or at the OpenID Connect token endpoint, where that session's
///   refreshes go too. The OpenID identity is stored with the session.
/// - Calls: ``get(_:parameters:)``, ``post(_:body:parameters:)``, ``put(_:body:parameters:)``,
///   ``delete(_:parameters:)`` and ``api(_:_:parameters:body:)`` return the `Results` array of
///   Spark's `{"D": {...}}` envelope, or throw ``SparkError/api(code:message:status:)``.
/// - Session renewal (``OAuth2Client``'s: one refresh shared by concurrent calls, rotated
///   refresh tokens kept): a token about to expire is refreshed first; a 401 with code 1020
///   (session expired) refreshes the session once and replays the call; a second 1020 is
///   returned as the error. A refused refresh token ends the session
///   (``SparkError/isSessionEnded``).
/// - Every request, the grant included, carries `X-SparkApi-User-Agent` (Spark refuses
///   requests without it, code 1016); its value is the configuration's
///   (``ServiceConfiguration/userAgent``) unless given. 429 and 5xx answers are retried as
///   ``retryPolicy`` says: Spark's rate limit, code 1550, comes with HTTP 503.
/// - Sign-out: ``signOut()`` here only; ``signOutEverywhere()`` deletes the tokens at Spark too.
///
/// Tokens live in ``oauth`` (and its ``TokenStore``); nothing here logs or throws a token, a
/// code or the secret.
public actor SparkClient {
    /// The service settings: client id and secret, OpenID, authorize, grant and API URLs.
    public nonisolated let configuration: ServiceConfiguration
    /// The session: the token, its store, grants, refreshes, `isAuthenticated`, sign-out and
    /// events. Its configuration has Spark's grant URL, JSON token requests with the secret in
    /// the body, the X-SparkApi-User-Agent header, and `redirect_uri` on refreshes.
    public nonisolated let oauth: OAuth2Client
    /// The `X-SparkApi-User-Agent` value: the app's name, as registered with Spark.
    public nonisolated let userAgent: String
    var logger: Logger
    /// How 429 and 5xx answers to API calls are retried.
    public private(set) var retryPolicy = ServiceRetryPolicy()
    /// The OpenID identity of the session or the last OpenID sign-in (SparkiOS kept it as
    /// `openId`): an OpenID Connect ID token's `sub`, or an OpenID 2.0 identifier. Stored with
    /// the session, so a restored session has it too. After a plain OpenID sign-in it is
    /// unverified (see ``SparkOpenIDResult``): not for authorization.
    public internal(set) var openIDIdentity: String?
    /// The discovery document, once read.
    var openIDProviderCache: OpenIDProviderMetadata?
    /// The provider's signing keys, once read (read again for an unknown key id).
    var openIDKeysCache: JSONWebKeySet?

    /// A client; a session stored for `account` is taken up at once.
    /// - Parameters:
    ///   - configuration: the endpoints, client id and secret.
    ///   - http: the transport: by default a `CurlHTTPClient` (the engine's libcurl settings); in
    ///     tests, an in-memory one.
    ///   - store: where the session is kept between runs (none: in memory only).
    ///   - account: the name the session is stored under.
    ///   - userAgent: the `X-SparkApi-User-Agent` value; nil: the configuration's, else
    ///     "StreamPlay/0.1".
    ///   - logger: where requests and sign-ins are logged (never a token).
    public init(configuration: ServiceConfiguration, http: any HTTPTransport = CurlHTTPClient(),
                store: (any TokenStore)? = nil, account: String = "spark", userAgent: String? = nil,
                logger: Logger = Logger(label: "streamplay.spark")) {
        let userAgent = userAgent ?? configuration.userAgent ?? "StreamPlay/0.1"
        self.configuration = configuration
        self.userAgent = userAgent
        self.logger = logger
        // oauth asks this client to verify a refresh's ID token; it must not keep it alive.
        let verifier = WeakSparkClient()
        oauth = OAuth2Client(configuration: Self.oauth2Configuration(configuration, userAgent: userAgent), http: http,
                             store: store, account: account, logger: logger,
                             refreshedIDTokenCheck: { idToken, previous in
                                 await verifier.client?.checkRefreshedIDToken(idToken, previous: previous) ?? .drop
                             })
        // The identity stored with the session (an unreadable store was logged by oauth).
        openIDIdentity = (try? store?.load(account: account))??.openIDIdentity
        verifier.client = self
    }

    /// Spark's OAuth 2 settings: the grant at ``ServiceConfiguration/tokenURL``, JSON bodies
    /// with the client id and secret, `X-SparkApi-User-Agent`, and `redirect_uri` on refreshes
    /// (the sign-in's, kept with the token, so a restored session repeats it too; else the
    /// configured one, else SparkiOS's default).
    static func oauth2Configuration(_ configuration: ServiceConfiguration, userAgent: String) -> OAuth2Configuration {
        var settings = configuration.oauth2Configuration(redirectURI: configuration.redirectURI ?? defaultRedirectURI,
                                                         clientAuthentication: .formFields)
        settings.tokenRequestEncoding = .json
        settings.tokenRequestHeaders = ["X-SparkApi-User-Agent": userAgent]
        settings.refreshIncludesRedirectURI = true
        return settings
    }

    // MARK: Session

    /// Events from now on: authenticated, reset (signed out or session ended), failures.
    public nonisolated var events: AsyncStream<OAuth2Event> { oauth.events }

    /// Whether there is an API session (a token, possibly expired but renewable).
    public var isAuthenticated: Bool {
        get async { await oauth.isAuthenticated }
    }

    /// Ends the session and forgets the stored token.
    public func signOut() async {
        await oauth.signOut()
        openIDIdentity = nil
    }

    // MARK: Settings

    /// How much is logged; setting it sets the logger's swift-log level.
    public var logLevel: SparkLogLevel { SparkLogLevel(logger.logLevel) }

    /// Sets how much is logged (SparkiOS's `setLogLevel:`), by this client and its ``oauth``.
    public func setLogLevel(_ level: SparkLogLevel) async {
        logger.logLevel = level.loggerLevel
        await oauth.setLogLevel(level.loggerLevel)
    }

    /// Sets how 429 and 5xx answers to API calls are retried.
    public func setRetryPolicy(_ policy: ServiceRetryPolicy) {
        retryPolicy = policy
    }

    // MARK: Transport

    /// Sends `request` through ``oauth`` with `Authorization: OAuth TOKEN` and
    /// `X-SparkApi-User-Agent`: a 401 with code 1020 renews the session once and replays (a
    /// second 1020 is the answer: no loop); 429 and 5xx answers are retried as ``retryPolicy``
    /// says. The last answer is returned as it is.
    func authorizedSend(_ request: HTTPRequest) async throws(SparkError) -> HTTPResponse {
        var request = request
        request.headers.set("X-SparkApi-User-Agent", userAgent)
        if request.headers["Accept"] == nil { request.headers.set("Accept", "application/json") }
        let prepared = request
        let cancelled = SparkError.transport(.cancelled(url: RedactedURL.describe(request.url)))
        return try await retryPolicy.retrying(prepared, service: "Spark", logger: logger, cancelled: cancelled) { () async throws(SparkError) in
            do throws(OAuth2Error) {
                return try await oauth.send(prepared, scheme: "OAuth", isExpired: { SparkResponse.isSessionExpired($0) })
            } catch {
                throw sparkError(error)
            }
        }
    }
}
