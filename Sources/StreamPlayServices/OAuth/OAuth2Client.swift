import FoundationEssentials
import Logging
import StreamPlay

/// An OAuth 2 client for one account at one server: the grants, the token's life, and requests
/// made with it.
///
/// - Grants: authorization code with PKCE (S256) and a checked `state`, or a code obtained
///   another way (``exchange(code:redirectURI:codeVerifier:tokenURL:)``); refresh token (the
///   newest refresh token is always kept, as servers that rotate them require); client
///   credentials; the resource owner password grant (legacy and discouraged: the app sees the
///   user's password; only for services that still accept it).
/// - A token is refreshed shortly before it expires, and once when a request is answered 401
///   (or the service's own expired-session answer); then the request is replayed. Concurrent
///   requests share one refresh. A refresh refused with `invalid_grant` ends the session.
/// - Tokens go to the ``TokenStore``, if one is given, after every change.
/// - Token requests carry ``OAuth2Configuration/tokenRequestHeaders``; an error answer that is
///   no OAuth error object still gives ``OAuth2Error/invalidResponse(reason:status:)`` with
///   the server's message.
///
/// Nothing here logs or throws a token, a code or a secret.
public actor OAuth2Client {
    /// The server and client settings.
    public nonisolated let configuration: OAuth2Configuration
    /// The transport for token and API requests.
    public nonisolated let http: any HTTPTransport
    private let store: (any TokenStore)?
    private let account: String
    private var logger: Logger
    private let broadcaster = Broadcaster<OAuth2Event>(buffered: 256)
    private var token: OAuth2Token?
    private var refreshing: Task<Result<OAuth2Token, OAuth2Error>, Never>?
    private var usesClientCredentials = false
    private var appTokenRequest: Task<Result<OAuth2Token, OAuth2Error>, Never>?
    /// Where the app's own token is kept between runs and processes (none: in memory only).
    public nonisolated let appTokenCache: AppTokenCache?
    /// Counts session resets: a grant that was under way when the session was reset (signed
    /// out) must not bring the session back.
    private var generation = 0
    /// Checks an ID token that comes with a refresh (nil: such a token is dropped unread).
    private let refreshedIDTokenCheck: RefreshedIDTokenCheck?

    /// Checks the ID token of a refresh answer against the session it renews (`previous`) and
    /// says what becomes of it. See ``init(configuration:http:store:account:logger:appTokenCache:refreshedIDTokenCheck:)``.
    public typealias RefreshedIDTokenCheck = @Sendable (_ idToken: String, _ previous: OAuth2Token) async -> RefreshedIDTokenVerdict

    /// A client; a token stored for `account` is taken up at once.
    /// - Parameters:
    ///   - configuration: the endpoints, client and scopes.
    ///   - http: the transport for token and API requests: by default a `CurlHTTPClient`; in
    ///     tests, an in-memory one.
    ///   - store: where tokens are kept between runs (none: in this object only).
    ///   - account: the name tokens are stored under (one per service and user).
    ///   - logger: where grants, refreshes and sign-outs are logged (never a token).
    ///   - appTokenCache: where client-credentials tokens are cached and renewed, shared with
    ///     other clients and processes (none: each client fetches its own, in memory only).
    ///   - refreshedIDTokenCheck: verifies an OpenID Connect ID token that a refresh answer
    ///     carries; one that passes replaces the session's, one that fails ends the session
    ///     (``OAuth2Error/idTokenRefused(_:)``), one that cannot be checked now is dropped.
    ///     Nil: such a token is dropped and the sign-in's kept.
    public init(configuration: OAuth2Configuration, http: any HTTPTransport = CurlHTTPClient(),
                store: (any TokenStore)? = nil, account: String,
                logger: Logger = Logger(label: "streamplay.oauth"), appTokenCache: AppTokenCache? = nil,
                refreshedIDTokenCheck: RefreshedIDTokenCheck? = nil) {
        self.configuration = configuration
        self.refreshedIDTokenCheck = refreshedIDTokenCheck
        self.appTokenCache = appTokenCache
        self.http = http
        self.store = store
        self.account = account
        self.logger = logger
        do {
            token = try store?.load(account: account)
        } catch {
            logger.warning("stored token unreadable; signed out", metadata: ["account": "\(account)", "error": "\(error)"])
        }
    }

    /// Events from now on: authenticated, reset, failures. Each read makes a new stream.
    public nonisolated var events: AsyncStream<OAuth2Event> { broadcaster.stream() }

    /// Whether there is a session (a token, possibly expired but renewable).
    public var isAuthenticated: Bool { token != nil }

    /// The current token, for inspection (its description shows no secret).
    public var currentToken: OAuth2Token? { token }

    /// Whether the session is the app's own (a client-credentials token, no user): a service
    /// refusing it on an endpoint that needs a user is no reason to renew it.
    public var isAppSession: Bool { token != nil && usesClientCredentials }

    /// How much this client logs (the level of the logger it was given, until changed).
    public var logLevel: Logger.Level { logger.logLevel }

    /// Sets how much this client logs; a service client sets it along with its own.
    public func setLogLevel(_ level: Logger.Level) {
        logger.logLevel = level
    }

    // MARK: Grants

    /// A new authorization request: open its `url` in a browser, then pass the redirect to
    /// ``completeAuthorization(_:redirect:)``.
    public func makeAuthorizationRequest() -> AuthorizationRequest {
        AuthorizationRequest(configuration: configuration)
    }

    /// Checks the redirect of `request` and exchanges its code for tokens.
    /// - Parameters:
    ///   - request: the authorization the browser was sent to.
    ///   - redirect: the URL the browser was sent back to, or its query.
    @discardableResult
    public func completeAuthorization(_ request: AuthorizationRequest, redirect: String) async throws(OAuth2Error) -> OAuth2Token {
        let code: String
        do {
            code = try request.code(from: redirect)
        } catch {
            broadcaster.send(.failedToGetAccessToken(error))
            throw error
        }
        return try await exchange(code: code, redirectURI: request.redirectURI,
                                  codeVerifier: request.sendsCodeChallenge ? request.pkce.verifier : nil)
    }

    /// Exchanges an authorization code obtained some other way (Spark's OpenID Hybrid sign-in
    /// returns one as `openid.spark.code`) for tokens: the authorization code grant without an
    /// ``AuthorizationRequest``. The caller has checked where the code came from.
    /// - Parameters:
    ///   - code: the authorization code.
    ///   - redirectURI: the redirect URI the code was issued for, sent as `redirect_uri`
    ///     (nil: none sent); kept for refreshes when the configuration says so.
    ///   - codeVerifier: the PKCE verifier, when the authorization sent a challenge.
    ///   - tokenURL: the token endpoint, when not the configuration's (an OpenID Connect
    ///     provider's, from its discovery document); kept with the token, refreshes go there.
    @discardableResult
    public func exchange(code: String, redirectURI: String?, codeVerifier: String? = nil,
                         tokenURL: String? = nil) async throws(OAuth2Error) -> OAuth2Token {
        var fields = [("grant_type", "authorization_code"), ("code", code)]
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        return try await grant(fields, name: "authorization_code", redirectURI: redirectURI, tokenURL: tokenURL)
    }

    /// The client credentials grant: the app's own token, no user. Concurrent calls share one
    /// request (the scopes of the first). With an ``appTokenCache``, a cached token that is
    /// still good is taken up instead, and an expired one is renewed with its refresh token
    /// (a new grant when that is refused), all under the cache's lock.
    @discardableResult
    public func authenticateWithClientCredentials(scopes: [String]? = nil) async throws(OAuth2Error) -> OAuth2Token {
        try await appToken(scopes: scopes, rejecting: nil)
    }

    private func appToken(scopes: [String]?, rejecting rejected: String?) async throws(OAuth2Error) -> OAuth2Token {
        if let appTokenRequest { return try await appTokenRequest.value.get() }
        var fields = [("grant_type", "client_credentials")]
        let scopes = scopes ?? configuration.scopes
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        let task = Task { () async -> Result<OAuth2Token, OAuth2Error> in
            do throws(OAuth2Error) {
                if let cache = self.appTokenCache {
                    return .success(try await self.cachedAppToken(cache, fields: fields, rejecting: rejected))
                }
                // The app's own token is kept in memory only: stored under the account, a later
                // run would take it for a user's session that cannot be renewed.
                return .success(try await self.grant(fields, name: "client_credentials", persists: false))
            } catch {
                return .failure(error)
            }
        }
        appTokenRequest = task
        let result = await task.value
        appTokenRequest = nil
        return try result.get()
    }

    /// The resource owner password grant. Discouraged (OAuth 2.1 drops it): the app handles the
    /// user's password. Only for services that still accept it.
    @discardableResult
    public func authenticate(username: String, password: String, scopes: [String]? = nil) async throws(OAuth2Error) -> OAuth2Token {
        var fields = [("grant_type", "password"), ("username", username), ("password", password)]
        let scopes = scopes ?? configuration.scopes
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        return try await grant(fields, name: "password")
    }

    /// Takes up a token obtained elsewhere (a token swap service, another flow) and stores it.
    public func adopt(_ token: OAuth2Token) {
        set(token)
        broadcaster.send(.authenticated)
    }

    /// Changes the current token's session facts (the identity an OpenID sign-in proved after
    /// the grant, say) and stores it; no event. Nothing happens without a session.
    public func updateToken(_ change: (inout OAuth2Token) -> Void) {
        guard var current = token else { return }
        change(&current)
        set(current, persists: !usesClientCredentials)
    }

    /// Ends the session and forgets the stored token.
    public func signOut() {
        guard token != nil else { return }
        reset()
        logger.info("signed out", metadata: ["account": "\(account)"])
    }

    // MARK: Token life

    /// The cache's token, renewed under its lock when needed, taken up as this client's.
    private func cachedAppToken(_ cache: AppTokenCache, fields: [(String, String)],
                                rejecting rejected: String?) async throws(OAuth2Error) -> OAuth2Token {
        let session = generation
        let token = try await cache.token(rejecting: rejected, margin: configuration.refreshMargin, logger: logger) {
            stored async throws(OAuth2Error) -> OAuth2Token in
            if let refreshToken = stored?.refreshToken {
                do throws(OAuth2Error) {
                    return try await self.grant([("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
                                                name: "refresh_token", previous: stored, persists: false)
                } catch {
                    guard case .tokenRequestFailed("invalid_grant", _, _) = error else { throw error }
                    // A refresh token used up or revoked: a new grant, still within the lock.
                }
            }
            return try await self.grant(fields, name: "client_credentials", persists: false)
        }
        guard generation == session else { throw .notAuthenticated }
        if self.token != token {
            set(token, persists: false)
            broadcaster.send(.authenticated)
        }
        return token
    }

    /// Renews the access token with the refresh token. Concurrent calls share one request.
    /// - Throws: ``OAuth2Error/sessionExpired(description:)`` when the refresh token was
    ///   refused (the session is reset), ``OAuth2Error/notAuthenticated``,
    ///   ``OAuth2Error/noRefreshToken``, or the request's failure.
    @discardableResult
    public func refresh() async throws(OAuth2Error) -> OAuth2Token {
        if let refreshing { return try await refreshing.value.get() }
        guard let current = token else { throw .notAuthenticated }
        guard let refreshToken = current.refreshToken else { throw .noRefreshToken }
        // The session this refresh belongs to: a sign-out before its answer makes it void.
        let session = generation
        let task = Task { await self.performRefresh(refreshToken, of: current, session: session) }
        refreshing = task
        let result = await task.value
        refreshing = nil
        return try result.get()
    }

    /// An access token good for a while: refreshed (or, for client credentials, fetched again)
    /// when it is about to expire.
    public func accessToken() async throws(OAuth2Error) -> String {
        guard let current = token else { throw .notAuthenticated }
        guard current.isExpired(margin: configuration.refreshMargin) else { return current.accessToken }
        if usesClientCredentials, appTokenCache != nil { return try await authenticateWithClientCredentials().accessToken }
        if current.refreshToken != nil { return try await refresh().accessToken }
        if usesClientCredentials { return try await authenticateWithClientCredentials().accessToken }
        return current.accessToken
    }

    // MARK: Requests

    /// Sends `request` with the access token in its Authorization header (`scheme TOKEN`); a
    /// response that `isExpired` says is an expired session (401 by default) renews the token
    /// once and replays the request.
    public func send(_ request: HTTPRequest, scheme: String = "Bearer",
                     uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
                     isExpired: @Sendable (HTTPResponse) -> Bool = { $0.status == 401 }) async throws(OAuth2Error) -> HTTPResponse {
        let used = try await accessToken()
        let response = try await send(request, token: used, scheme: scheme, uploadProgress: uploadProgress)
        guard isExpired(response) else { return response }
        let fresh: String
        if let current = token?.accessToken, current != used {
            fresh = current  // another request renewed it meanwhile
        } else if usesClientCredentials, appTokenCache != nil {
            fresh = try await appToken(scopes: nil, rejecting: used).accessToken
        } else if token?.refreshToken != nil {
            fresh = try await refresh().accessToken
        } else if usesClientCredentials {
            fresh = try await authenticateWithClientCredentials().accessToken
        } else {
            return response
        }
        logger.debug("token renewed after an expired-session answer; replaying", metadata: ["url": "\(RedactedURL.describe(request.url))"])
        return try await send(request, token: fresh, scheme: scheme, uploadProgress: uploadProgress)
    }

    private func send(_ request: HTTPRequest, token: String, scheme: String,
                      uploadProgress: (@Sendable (Int64, Int64) -> Void)?) async throws(OAuth2Error) -> HTTPResponse {
        var authorized = request
        authorized.headers.set("Authorization", "\(scheme) \(token)")
        do {
            return try await http.send(authorized, uploadProgress: uploadProgress)
        } catch {
            throw .transport(error)
        }
    }

    // MARK: Token endpoint

    private func performRefresh(_ refreshToken: String, of current: OAuth2Token, session: Int) async -> Result<OAuth2Token, OAuth2Error> {
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if configuration.refreshIncludesRedirectURI, let sent = current.redirectURI ?? configuration.redirectURI {
            fields.append(("redirect_uri", sent))
        }
        do throws(OAuth2Error) {
            return .success(try await grant(fields, name: "refresh_token", previous: current, redirectURI: current.redirectURI,
                                            tokenURL: current.tokenURL, persists: !usesClientCredentials, session: session))
        } catch {
            // A refusal for a session already ended must not end the one that followed it.
            if case .tokenRequestFailed("invalid_grant", let description, _) = error, session == generation {
                // Revoked or expired: this session cannot be renewed.
                logger.warning("refresh token refused; session reset", metadata: ["account": "\(account)"])
                reset()
                return .failure(.sessionExpired(description: description))
            }
            return .failure(error)
        }
    }

    /// Posts a grant to the token endpoint and takes up the token it returns.
    /// - Parameters:
    ///   - previous: the token a refresh renews (its refresh token and sign-in are kept).
    ///   - redirectURI: kept with the token (the redirect URI its code was issued for).
    ///   - tokenURL: the endpoint to post to, kept with the token; nil: the configuration's.
    ///   - persists: whether the token goes to the store.
    ///   - session: the session the grant belongs to (the current one by default).
    private func grant(_ fields: [(String, String)], name: String, previous: OAuth2Token? = nil,
                       redirectURI: String? = nil, tokenURL: String? = nil, persists: Bool = true,
                       session: Int? = nil) async throws(OAuth2Error) -> OAuth2Token {
        let started = session ?? generation
        do throws(OAuth2Error) {
            let response = try await postToTokenEndpoint(fields, url: tokenURL)
            var fresh = try Self.parseToken(response)
            // Signed out while the request was under way: the answer must not sign in again.
            guard generation == started else { throw OAuth2Error.notAuthenticated }
            // A server that does not rotate sends no new refresh token: the old one still holds.
            if fresh.refreshToken == nil { fresh.refreshToken = previous?.refreshToken }
            let refreshedIDToken = fresh.idToken
            if let previous { fresh = fresh.keepingSignIn(of: previous) }
            if let previous, let refreshedIDToken, let refreshedIDTokenCheck {
                let verdict = await refreshedIDTokenCheck(refreshedIDToken, previous)
                if case .refuse(let problem) = verdict {
                    // Tokens for another sign-in are no session, and the old refresh token may be used up.
                    if generation == started { reset() }
                    throw OAuth2Error.idTokenRefused(problem)
                }
                guard generation == started else { throw OAuth2Error.notAuthenticated }
                if verdict == .keep { fresh.idToken = refreshedIDToken }
            }
            fresh.redirectURI = redirectURI
            fresh.tokenURL = tokenURL
            set(fresh, persists: persists)
            logger.info("access token obtained", metadata: ["account": "\(account)", "grant": "\(name)", "token": "\(fresh)"])
            broadcaster.send(.authenticated)
            return fresh
        } catch {
            logger.warning("token request failed", metadata: ["account": "\(account)", "grant": "\(name)", "error": "\(error)"])
            broadcaster.send(.failedToGetAccessToken(error))
            throw error
        }
    }

    /// The token in `response`; an error answer that is no OAuth error object (Spark's
    /// `{"D": {...}}` envelope, for one) still names the server's message, when it has one.
    private static func parseToken(_ response: HTTPResponse) throws(OAuth2Error) -> OAuth2Token {
        do {
            return try TokenResponse.parse(response)
        } catch {
            guard case .invalidResponse(let reason, let status) = error, !response.isSuccess,
                  let message = serverMessage(in: response) else { throw error }
            throw .invalidResponse(reason: "\(reason): \(message)", status: status)
        }
    }

    /// The message of a non-OAuth error body: `{"D": {"Code", "Message"}}` (Spark),
    /// `{"error": {"message"}}` or `{"message"}`; only that text, shortened, never the body.
    private static func serverMessage(in response: HTTPResponse) -> String? {
        guard let json = try? JSON(parsing: response.body) else { return nil }
        let text: String?
        if let envelope = json["D"], envelope.object != nil {
            let code = envelope["Code"]?.int.map { "code \($0)" }
            text = [code, envelope["Message"]?.string].compactMap { $0 }.joined(separator: ", ")
        } else {
            text = json["error"]?["message"]?.string ?? json["message"]?.string
        }
        guard let text, !text.isEmpty else { return nil }
        let line = scrubbed(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }

    /// `text` with every token-like word (16 or more characters of the base64url, hex or JWT
    /// alphabets, digits and letters mixed) replaced, in case a server echoes the code or
    /// token it refused.
    static func scrubbed(_ text: String) -> String {
        let tokenCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=")
        var result = ""
        var word = ""
        func flush() {
            let looksLikeToken = word.count >= 16 && word.contains(where: \.isNumber) && word.contains(where: \.isLetter)
            result += looksLikeToken ? "[redacted]" : word
            word = ""
        }
        for character in text {
            if tokenCharacters.contains(character) {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    private func postToTokenEndpoint(_ fields: [(String, String)], url sessionURL: String? = nil) async throws(OAuth2Error) -> HTTPResponse {
        var fields = fields
        var headers: HTTPHeaders = ["Accept": "application/json"]
        for (name, value) in configuration.tokenRequestHeaders { headers.set(name, value) }
        switch configuration.clientAuthentication {
        case .basic:
            // RFC 6749 2.3.1: id and secret form-encoded before Base64.
            let pair = FormEncoding.percentEncode(configuration.clientID) + ":" + FormEncoding.percentEncode(configuration.clientSecret ?? "")
            headers.set("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())
        case .formFields:
            fields += [("client_id", configuration.clientID), ("client_secret", configuration.clientSecret ?? "")]
        case .none:
            fields.append(("client_id", configuration.clientID))
        case .tokenService:
            break
        }
        let isRefresh = fields.contains { $0 == ("grant_type", "refresh_token") }
        let url = sessionURL ?? (isRefresh ? configuration.refreshURL ?? configuration.tokenURL : configuration.tokenURL)
        let body: HTTPRequest.Body
        switch configuration.tokenRequestEncoding {
        case .form:
            body = .form(fields)
        case .json:
            var object: [String: String] = [:]
            for (name, value) in fields { object[name] = value }
            guard let bytes = try? JSONEncoder().encode(object) else {
                throw .invalidResponse(reason: "the token request could not be encoded", status: 0)
            }
            body = .json(Array(bytes))
        }
        do {
            return try await http.send(HTTPRequest(method: .post, url: url, headers: headers, body: body))
        } catch {
            throw .transport(error)
        }
    }

    /// Takes up `new`; a token that is not kept (the app's own) is renewed by asking again.
    private func set(_ new: OAuth2Token, persists: Bool = true) {
        token = new
        usesClientCredentials = !persists
        guard persists else { return }
        do {
            try store?.save(new, account: account)
        } catch {
            logger.error("could not store the token", metadata: ["account": "\(account)", "error": "\(error)"])
        }
    }

    private func reset() {
        if usesClientCredentials, let appTokenCache {
            // The app's token was this session's: one signed out is no use to the next run.
            do {
                try appTokenCache.remove()
            } catch {
                logger.error("could not remove the cached app token", metadata: ["account": "\(account)", "error": "\(error)"])
            }
        }
        token = nil
        generation += 1
        usesClientCredentials = false
        do {
            try store?.remove(account: account)
        } catch {
            logger.error("could not remove the stored token", metadata: ["account": "\(account)", "error": "\(error)"])
        }
        broadcaster.send(.authenticationReset)
    }
}
