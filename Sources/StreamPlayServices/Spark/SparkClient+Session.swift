import FoundationEssentials
import Logging
import StreamPlay

extension SparkClient {
    /// SparkiOS's default redirect URI, used for a refresh when the sign-in's is not known
    /// (a session restored from the store) and none is configured.
    static let defaultRedirectURI = "https://sparkplatform.com/oauth2/callback"

    // MARK: Plain OAuth 2

    /// A plain OAuth 2 authorization request (Spark's `/oauth2`): open its `url` in a browser,
    /// then pass the redirect to ``completeAuthorization(_:redirect:)``. Spark has no PKCE: it
    /// ignores the challenge in the URL, and the checked `state` is what protects the redirect.
    /// - Parameter redirectURI: where Spark sends the browser back (a loopback listener's
    ///   URI); nil: the configuration's.
    public nonisolated func makeAuthorizationRequest(redirectURI: String? = nil) -> AuthorizationRequest {
        var settings = oauth.configuration
        if let redirectURI { settings.redirectURI = redirectURI }
        return AuthorizationRequest(configuration: settings)
    }

    /// Checks the redirect of `request` (state first) and exchanges its code at the grant
    /// endpoint.
    /// - Throws: ``SparkError/authorization(_:)`` for a state mismatch, a denial or a refused
    ///   grant; ``SparkError/api(code:message:status:)`` for a Spark error envelope.
    @discardableResult
    public func completeAuthorization(_ request: AuthorizationRequest, redirect: String) async throws(SparkError) -> OAuth2Token {
        let code: String
        do {
            code = try request.code(from: redirect)
        } catch {
            logger.warning("Spark authorization failed", metadata: ["error": "\(error)"])
            throw .authorization(error)
        }
        guard let redirectURI = request.redirectURI else {
            throw .authorization(.invalidRedirect(reason: "the request had no redirect URI, which Spark's grant requires"))
        }
        return try await exchange(code: code, redirectURI: redirectURI)
    }

    // MARK: Token life

    /// Renews the session with the refresh token (Spark rotates them: the newest is kept).
    /// Concurrent calls share one request.
    /// - Throws: ``SparkError/authorization(_:)`` with ``OAuth2Error/sessionExpired(description:)``
    ///   when the refresh token was refused (the session is ended), `notAuthenticated` or
    ///   `noRefreshToken`; or the request's failure.
    @discardableResult
    public func refresh() async throws(SparkError) -> OAuth2Token {
        if let refreshing { return try await refreshing.value.get() }
        let current = await oauth.currentToken
        // Another call may have started a refresh while the token was read.
        if let refreshing { return try await refreshing.value.get() }
        guard let current else { throw .authorization(.notAuthenticated) }
        guard let refreshToken = current.refreshToken else { throw .authorization(.noRefreshToken) }
        let task = Task { await self.performRefresh(refreshToken) }
        refreshing = task
        let result = await task.value
        refreshing = nil
        return try result.get()
    }

    /// The code exchange of a Hybrid or OAuth 2 sign-in; `redirectURI` must be the one the
    /// code was issued for.
    @discardableResult
    func exchange(code: String, redirectURI: String) async throws(SparkError) -> OAuth2Token {
        let token = try await postGrant([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)],
                                        name: "authorization_code")
        signInRedirectURI = redirectURI
        return token
    }

    private func performRefresh(_ refreshToken: String) async -> Result<OAuth2Token, SparkError> {
        let redirectURI = signInRedirectURI ?? configuration.redirectURI ?? Self.defaultRedirectURI
        do throws(SparkError) {
            return .success(try await postGrant(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("redirect_uri", redirectURI)],
                name: "refresh_token", previousRefreshToken: refreshToken))
        } catch {
            if case .authorization(.tokenRequestFailed("invalid_grant", let description, _)) = error {
                // Revoked, used or expired: this session cannot be renewed.
                logger.warning("Spark refresh token refused; session ended")
                await oauth.signOut()
                openIDIdentity = nil
                return .failure(.authorization(.sessionExpired(description: description)))
            }
            return .failure(error)
        }
    }

    /// Posts a grant to `/v1/oauth2/grant` as JSON with the client id and secret, and hands
    /// the token to ``oauth`` (which stores it).
    private func postGrant(_ fields: [(String, String)], name: String,
                           previousRefreshToken: String? = nil) async throws(SparkError) -> OAuth2Token {
        var object: [String: JSON] = ["client_id": .string(configuration.clientID),
                                      "client_secret": .string(configuration.clientSecret ?? "")]
        for (field, value) in fields { object[field] = .string(value) }
        let request = HTTPRequest(method: .post, url: oauth.configuration.tokenURL,
                                  body: .json(JSON.object(object).encoded()))
        let response: HTTPResponse
        do {
            response = try await transmit(request)
        } catch {
            logger.error("Spark grant failed", metadata: ["grant": "\(name)", "error": "\(error)"])
            throw error
        }
        // 1016 (no user agent), 1035 (not JSON) and injected failures come as envelopes.
        if !response.isSuccess, let error = SparkResponse.error(in: response) {
            logger.error("Spark grant failed", metadata: ["grant": "\(name)", "error": "\(error)"])
            throw error
        }
        var token: OAuth2Token
        do throws(OAuth2Error) {
            token = try TokenResponse.parse(response)
        } catch {
            logger.error("Spark grant failed", metadata: ["grant": "\(name)", "error": "\(error)"])
            throw .authorization(error)
        }
        // Spark rotates refresh tokens; should one not come, the old one still holds.
        if token.refreshToken == nil { token.refreshToken = previousRefreshToken }
        await oauth.adopt(token)
        logger.info("Spark session obtained", metadata: ["grant": "\(name)", "token": "\(token)"])
        return token
    }

    // MARK: Authorized requests

    /// An access token good for a while: renewed first when it is about to expire.
    func accessToken() async throws(SparkError) -> String {
        guard let current = await oauth.currentToken else { throw .authorization(.notAuthenticated) }
        if current.isExpired(margin: oauth.configuration.refreshMargin), current.refreshToken != nil {
            return try await refresh().accessToken
        }
        return current.accessToken
    }

    /// Sends `request` with `Authorization: OAuth TOKEN`; on 401 code 1020 (session expired)
    /// renews the session once and replays. A second 1020 is the caller's answer: no loop.
    func authorizedSend(_ request: HTTPRequest) async throws(SparkError) -> HTTPResponse {
        let used = try await accessToken()
        let response = try await transmit(Self.authorized(request, token: used))
        guard SparkResponse.isSessionExpired(response) else { return response }
        let fresh: String
        if let current = await oauth.currentToken?.accessToken, current != used {
            fresh = current  // another call renewed it meanwhile
        } else {
            fresh = try await refresh().accessToken
        }
        logger.debug("Spark session renewed after code 1020; replaying", metadata: ["url": "\(RedactedURL.describe(request.url))"])
        return try await transmit(Self.authorized(request, token: fresh))
    }

    private static func authorized(_ request: HTTPRequest, token: String) -> HTTPRequest {
        var authorized = request
        authorized.headers.set("Authorization", "OAuth \(token)")
        return authorized
    }
}
