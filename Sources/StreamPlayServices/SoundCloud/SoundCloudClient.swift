import FoundationEssentials
import Logging
import StreamPlay

/// A client of the SoundCloud API (api.soundcloud.com, OAuth 2.1), after the SoundCloud API
/// wrapper: sign-in through ``oauth``, a general ``request(_:_:parameters:body:uploadProgress:)``
/// like the wrapper's performMethod, typed calls for users, tracks, links, streams, uploads and
/// connections.
///
/// ```swift
/// let client = SoundCloudClient(configuration: configuration)
/// let request = await client.oauth.makeAuthorizationRequest()   // open request.url
/// try await client.oauth.completeAuthorization(request, redirect: redirectURL)
/// let me = try await client.me()
/// let stream = try await client.stream(forTrack: "soundcloud:tracks:123")
/// ```
///
/// Every API request carries `Authorization: OAuth TOKEN`; an expired session is renewed once
/// and the request replayed (``OAuth2Client``). HTTP 429 and 5xx answers are retried as
/// ``ServiceRetryPolicy`` says. Redirects are followed only on the API's own host (with the
/// header); a redirect elsewhere, as a stream's to the CDN, is returned, never followed with
/// the token.
public final class SoundCloudClient: Sendable {
    /// The service settings (client id, URLs); its description shows no secret.
    public let configuration: ServiceConfiguration
    /// The OAuth 2 client: sign-in (authorization code + PKCE + state, client credentials),
    /// session events, sign-out. A confidential client authenticating with HTTP Basic.
    public let oauth: OAuth2Client
    /// How 429 and 5xx answers are retried.
    public let retryPolicy: ServiceRetryPolicy
    let logger: Logger

    /// A client; a token stored for `account` in `store` is taken up at once.
    /// - Parameters:
    ///   - configuration: the service settings; its `redirectURI` is the sign-in's (a loopback
    ///     listener's URI for a native app).
    ///   - http: the transport: by default a `CurlHTTPClient` (the engine's libcurl settings); in
///     tests, an in-memory one.
    ///   - store: where the tokens are kept between runs; the app's own (client credentials)
    ///     token is cached there too, under `ACCOUNT-app` (see ``AppTokenCache``).
    ///   - account: the name tokens are stored under.
    ///   - retryPolicy: how 429 and 5xx answers are retried.
    ///   - logger: where requests and sign-ins are logged (never a token).
    public init(configuration: ServiceConfiguration, http: any HTTPTransport = CurlHTTPClient(),
                store: (any TokenStore)? = nil, account: String = "soundcloud",
                logger: Logger = Logger(label: "streamplay.soundcloud"),
                retryPolicy: ServiceRetryPolicy = ServiceRetryPolicy()) {
        self.configuration = configuration
        self.logger = logger
        self.retryPolicy = retryPolicy
        // App tokens are rationed (50 per 12 hours per app): cached beside the user's, shared by processes.
        oauth = OAuth2Client(configuration: configuration.oauth2Configuration(), http: http, store: store,
                             account: account, logger: logger,
                             appTokenCache: store.map { AppTokenCache(store: $0, account: AppTokenCache.account(for: account)) })
    }

    // MARK: General requests

    /// Starts a request on a resource of the API, like the wrapper's performMethod, and returns
    /// a handle to cancel or await it.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - resource: a path (`/me`, `tracks/soundcloud:tracks:123`) or a full URL on the API's
    ///     host (a full URL elsewhere is refused: it would receive the token).
    ///   - parameters: query parameters; for POST, PUT and PATCH without a `body`, the form body.
    ///   - body: the request body (a multipart upload, JSON, ...).
    ///   - uploadProgress: called with (bytes sent, bytes to send) while the body goes out.
    public func request(_ method: HTTPRequest.Method, _ resource: String, parameters: [(String, String)] = [],
                        body: HTTPRequest.Body = .none,
                        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil) -> SoundCloudRequest {
        SoundCloudRequest { [self] in
            do throws(SoundCloudError) {
                return .success(try await perform(method, resource, parameters: parameters, body: body,
                                                  uploadProgress: uploadProgress))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Sends a request (same-origin redirects followed) and returns a 2xx or off-host 3xx
    /// answer; error statuses are thrown as their typed errors.
    func perform(_ method: HTTPRequest.Method, _ resource: String, parameters: [(String, String)] = [],
                 body: HTTPRequest.Body = .none, accept: String = "application/json",
                 uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws(SoundCloudError) -> SoundCloudResponse {
        var body = body
        var query = parameters
        if case .none = body, !parameters.isEmpty, [.post, .put, .patch].contains(method) {
            body = .form(parameters)
            query = []
        }
        var url = try makeURL(resource, query: query)
        // The app's own token on a user's endpoint: SoundCloud's 401 means "sign in", not
        // "expired"; renewing the rationed app token would not help.
        let appTokenOnUserEndpoint = needsUser(method, url) ? await oauth.isAppSession : false
        for _ in 0...5 {
            let request = HTTPRequest(method: method, url: url, headers: ["Accept": accept], body: body)
            let response = try await sendRetrying(request, renewsOn401: !appTokenOnUserEndpoint, uploadProgress: uploadProgress)
            if response.isRedirect, let location = response.headers["Location"] {
                let target = Self.absolute(location, base: url)
                // Only the API's own host may see the token; elsewhere (the CDN) the caller decides.
                guard isOnAPIHost(target), method == .get || method == .head else { return Self.decoded(response) }
                logger.debug("following a redirect on the API host", metadata: ["to": "\(RedactedURL.describe(target))"])
                url = target
                continue
            }
            guard (200..<400).contains(response.status) else {
                if response.status == 401, appTokenOnUserEndpoint {
                    throw SoundCloudError.userSignInRequired(SoundCloudErrorBody(response: response))
                }
                throw SoundCloudError.from(response)
            }
            return Self.decoded(response)
        }
        throw .invalidResponse(reason: "too many redirects from \(RedactedURL.describe(url))", status: 302)
    }

    /// A GET of `resource`, its JSON body.
    func get(_ resource: String, parameters: [(String, String)] = []) async throws(SoundCloudError) -> JSON {
        try await perform(.get, resource, parameters: parameters).json
    }

    /// Whether `method` on `url` needs a user's token: the `/me` endpoints and uploads
    /// (`POST /tracks`), as the OpenAPI's `me` tag and upload say.
    func needsUser(_ method: HTTPRequest.Method, _ url: String) -> Bool {
        let base = ServiceConfiguration.trimmingTrailingSlash(configuration.apiURL)
        guard url.lowercased().hasPrefix(base.lowercased()) else { return false }
        let path = url.dropFirst(base.count).prefix { $0 != "?" && $0 != "#" }
        return path == "/me" || path.hasPrefix("/me/") || (method == .post && path == "/tracks")
    }

    /// Sends `request` with the OAuth header, retrying 429 and 5xx as the policy says. The last
    /// answer is returned whatever its status. With `renewsOn401` false, a 401 is returned as
    /// it is, the token not renewed.
    private func sendRetrying(_ request: HTTPRequest, renewsOn401: Bool = true,
                              uploadProgress: (@Sendable (Int64, Int64) -> Void)?) async throws(SoundCloudError) -> HTTPResponse {
        try await retryPolicy.retrying(request, service: "SoundCloud", logger: logger, cancelled: SoundCloudError.cancelled,
                                       resetIn: { response in
                                           response.status == 429 ? SoundCloudErrorBody(response: response).resetTime?.timeIntervalSinceNow : nil
                                       }) { () async throws(SoundCloudError) -> HTTPResponse in
            let response: HTTPResponse
            do throws(OAuth2Error) {
                response = try await oauth.send(request, scheme: "OAuth", uploadProgress: uploadProgress,
                                                isExpired: { renewsOn401 && $0.status == 401 })
            } catch {
                throw SoundCloudError.from(error)
            }
            logger.debug("SoundCloud API", metadata: ["method": "\(request.method)", "url": "\(RedactedURL.describe(request.url))",
                                                      "status": "\(response.status)"])
            return response
        }
    }

    // MARK: URLs

    /// The URL of `resource` with `query` appended, refused when it is off the API's origin
    /// (it would receive the token).
    private func makeURL(_ resource: String, query: [(String, String)]) throws(SoundCloudError) -> String {
        var url = URLOrigin.hasScheme(resource) ? resource : configuration.apiURL(resource)
        guard isOnAPIHost(url) else {
            throw .invalidRequest(reason: "\(RedactedURL.describe(url)) is not on the API host; the token is sent only there")
        }
        if !query.isEmpty { url += (url.contains("?") ? "&" : "?") + FormEncoding.encode(query) }
        return url
    }

    /// Whether `url` is on the API's origin (scheme, host and port; a default port is the same
    /// as none).
    func isOnAPIHost(_ url: String) -> Bool {
        guard let origin = URLOrigin(url) else { return false }
        return origin == URLOrigin(configuration.apiURL)
    }

    /// `location` made absolute against `base` (Location may be a path or `//host/path`).
    static func absolute(_ location: String, base: String) -> String {
        URLOrigin.absolute(location, base: base)
    }

    private static func decoded(_ response: HTTPResponse) -> SoundCloudResponse {
        let json = response.body.isEmpty ? JSON.null : ((try? JSON(parsing: response.body)) ?? .null)
        return SoundCloudResponse(status: response.status, headers: response.headers, json: json, body: response.body,
                                  url: RedactedURL.describe(response.url))
    }
}
