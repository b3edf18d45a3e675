import Logging
import StreamPlay

extension SparkClient {
    /// SparkiOS's default redirect URI: the one a refresh repeats when the sign-in's is not
    /// known (a session restored from the store) and none is configured.
    static let defaultRedirectURI = "https://sparkplatform.com/oauth2/callback"

    // MARK: Plain OAuth 2

    /// A plain OAuth 2 authorization request (Spark's `/oauth2`): open its `url` in a browser,
    /// then pass the redirect to ``completeAuthorization(_:redirect:)``. Spark has no PKCE: it
    /// ignores the challenge in the URL, and the checked `state` is what protects the redirect.
    /// - Parameter redirectURI: where Spark sends the browser back (a loopback listener's
    ///   URI); nil: the configuration's, else SparkiOS's default.
    public nonisolated func makeAuthorizationRequest(redirectURI: String? = nil) -> AuthorizationRequest {
        var settings = oauth.configuration
        if let redirectURI { settings.redirectURI = redirectURI }
        return AuthorizationRequest(configuration: settings)
    }

    /// Checks the redirect of `request` (state first) and exchanges its code at the grant
    /// endpoint.
    /// - Throws: ``SparkError/authorization(_:)`` for a state mismatch, a denial, a refused
    ///   grant or a grant endpoint error (``OAuth2Error/invalidResponse(reason:status:)`` with
    ///   Spark's code and message).
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
    /// Concurrent calls, and the renewals of API calls, share one request.
    /// - Throws: ``SparkError/authorization(_:)`` with ``OAuth2Error/sessionExpired(description:)``
    ///   when the refresh token was refused (the session is ended), `notAuthenticated` or
    ///   `noRefreshToken`; or the request's failure.
    @discardableResult
    public func refresh() async throws(SparkError) -> OAuth2Token {
        do {
            let token = try await oauth.refresh()
            logger.info("Spark session renewed", metadata: ["token": "\(token)"])
            return token
        } catch {
            let failure = sparkError(error)
            logger.error("Spark session renewal failed", metadata: ["error": "\(failure)"])
            throw failure
        }
    }

    /// The code exchange of a Hybrid, OAuth 2 or OpenID Connect sign-in, without PKCE (Spark
    /// has none); `redirectURI` must be the one the code was issued for, and later refreshes
    /// repeat it. `tokenURL`: the OpenID Connect token endpoint (nil: the grant endpoint).
    @discardableResult
    func exchange(code: String, redirectURI: String, tokenURL: String? = nil) async throws(SparkError) -> OAuth2Token {
        do {
            let token = try await oauth.exchange(code: code, redirectURI: redirectURI, tokenURL: tokenURL)
            logger.info("Spark session obtained", metadata: ["token": "\(token)"])
            return token
        } catch {
            let failure = sparkError(error)
            logger.error("Spark grant failed", metadata: ["error": "\(failure)"])
            throw failure
        }
    }

    /// `error` from ``oauth`` as a ``SparkError``: no answer stays a transport error, the rest
    /// is ``SparkError/authorization(_:)``. A session that ended takes the OpenID identity
    /// with it.
    func sparkError(_ error: OAuth2Error) -> SparkError {
        switch error {
        case .transport(let failure):
            return .transport(failure)
        case .sessionExpired:
            openIDIdentity = nil
            return .authorization(error)
        case .idTokenRefused(let refusal):
            // The session was ended: its refreshed sign-in could not be proven.
            openIDIdentity = nil
            return .idToken(refusal)
        default:
            return .authorization(error)
        }
    }
}
