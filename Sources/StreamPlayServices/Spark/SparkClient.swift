import FoundationEssentials
import Logging
import StreamPlay

/// A client of the Spark platform API (sparkapi.com) for one account, after SparkiOS's
/// `SparkAPI` object.
///
/// - Sign-in: Hybrid (OpenID with an OAuth 2 code, ``makeOpenIDRequest(hybrid:attributes:returnTo:)``
///   and ``completeOpenID(_:returnURL:)``), plain OpenID (identity and attributes only), or the
///   plain OAuth 2 authorize flow (``makeAuthorizationRequest()``,
///   ``completeAuthorization(_:redirect:)``). Codes are exchanged at `/v1/oauth2/grant` with a
///   JSON body that carries the client id and secret.
/// - Calls: ``get(_:parameters:)``, ``post(_:body:parameters:)``, ``put(_:body:parameters:)``,
///   ``delete(_:parameters:)`` and ``api(_:_:parameters:body:)`` return the `Results` array of
///   Spark's `{"D": {...}}` envelope, or throw ``SparkError/api(code:message:status:)``.
/// - Session renewal: a 401 with code 1020 (session expired) refreshes the session once and
///   replays the call; a second 1020 is returned as the error. A refused refresh token ends
///   the session (``SparkError/isSessionEnded``).
/// - Every request, the grant included, carries `X-SparkApi-User-Agent` (Spark refuses
///   requests without it, code 1016). 429 and 503 answers are retried (``SparkRetryPolicy``).
///
/// Tokens live in ``oauth`` (and its ``TokenStore``); nothing here logs or throws a token, a
/// code or the secret.
public actor SparkClient {
    /// The service settings: client id and secret, OpenID, authorize, grant and API URLs.
    public nonisolated let configuration: ServiceConfiguration
    /// The session holder: the token, its store, `isAuthenticated`, sign-out and events. Its
    /// configuration has Spark's grant URL, JSON token requests and the secret in the body.
    /// Grants and refreshes go through this client, not through ``OAuth2Client``'s own grant
    /// methods: Spark needs the X-SparkApi-User-Agent header and a `redirect_uri` on refresh,
    /// which those do not send.
    public nonisolated let oauth: OAuth2Client
    /// The `X-SparkApi-User-Agent` value: the app's name, as registered with Spark.
    public nonisolated let userAgent: String
    let http: HTTPClient
    var logger: Logger
    /// How 429 and 503 answers are retried.
    public private(set) var retryPolicy = SparkRetryPolicy()
    /// The OpenID identity of the last OpenID or Hybrid sign-in (SparkiOS kept it as `openId`).
    public internal(set) var openIDIdentity: String?
    /// The redirect URI of this run's sign-in: Spark's refresh grant repeats it.
    var signInRedirectURI: String?
    var refreshing: Task<Result<OAuth2Token, SparkError>, Never>?

    /// A client; a session stored for `account` is taken up at once.
    /// - Parameters:
    ///   - store: where the session is kept between runs (none: in memory only).
    ///   - account: the name the session is stored under.
    ///   - userAgent: the `X-SparkApi-User-Agent` value.
    public init(configuration: ServiceConfiguration, http: HTTPClient = HTTPClient(),
                store: (any TokenStore)? = nil, account: String = "spark", userAgent: String = "StreamPlay/0.1",
                logger: Logger = Logger(label: "streamplay.spark")) {
        self.configuration = configuration
        self.http = http
        self.userAgent = userAgent
        self.logger = logger
        oauth = OAuth2Client(configuration: Self.oauth2Configuration(configuration), http: http, store: store,
                             account: account, logger: logger)
    }

    /// Spark's OAuth 2 settings: the grant at ``ServiceConfiguration/tokenURL``, JSON bodies,
    /// the client id and secret in them.
    static func oauth2Configuration(_ configuration: ServiceConfiguration) -> OAuth2Configuration {
        var settings = configuration.oauth2Configuration(clientAuthentication: .formFields)
        settings.tokenRequestEncoding = .json
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
        signInRedirectURI = nil
    }

    // MARK: Settings

    /// How much is logged; setting it sets the logger's swift-log level.
    public var logLevel: SparkLogLevel { SparkLogLevel(logger.logLevel) }

    /// Sets how much is logged (SparkiOS's `setLogLevel:`).
    public func setLogLevel(_ level: SparkLogLevel) {
        logger.logLevel = level.loggerLevel
    }

    /// Sets how 429 and 503 answers are retried.
    public func setRetryPolicy(_ policy: SparkRetryPolicy) {
        retryPolicy = policy
    }

    // MARK: Transport

    /// Sends `request` with `X-SparkApi-User-Agent`, retrying 429 and 503 answers as
    /// ``retryPolicy`` says (Retry-After honoured, capped). The last answer is returned as is.
    func transmit(_ request: HTTPRequest) async throws(SparkError) -> HTTPResponse {
        var request = request
        request.headers.set("X-SparkApi-User-Agent", userAgent)
        if request.headers["Accept"] == nil { request.headers.set("Accept", "application/json") }
        var attempt = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await http.send(request)
            } catch {
                throw .transport(error)
            }
            guard retryPolicy.isRetryable(status: response.status), attempt < retryPolicy.maximumRetries else { return response }
            attempt += 1
            let delay = retryPolicy.delay(retryAfter: response.retryAfter, attempt: attempt)
            logger.warning("Spark API busy; retrying", metadata: [
                "url": "\(RedactedURL.describe(request.url))", "status": "\(response.status)",
                "code": "\(SparkResponse.error(in: response)?.code.map(String.init) ?? "none")",
                "delay": "\(delay)", "attempt": "\(attempt)",
            ])
            do {
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            } catch {
                throw .transport(.cancelled(url: RedactedURL.describe(request.url)))
            }
        }
    }
}
