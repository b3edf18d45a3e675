import FoundationEssentials
import Logging
import StreamPlay

extension SparkClient {
    /// Spark's OpenID Connect discovery document (``ServiceConfiguration/discoveryURL``), read
    /// once per client and kept.
    /// - Throws: ``SparkError/discovery(reason:)`` when it cannot be fetched or read.
    public func openIDProvider() async throws(SparkError) -> OpenIDProviderMetadata {
        if let openIDProviderCache { return openIDProviderCache }
        let discoveryURL = configuration.discoveryURL ?? ServiceConfiguration.defaults(for: .spark).discoveryURL ?? ""
        let provider = try OpenIDProviderMetadata(json: try await fetchJSON(discoveryURL, what: "the discovery document"),
                                                  discoveryURL: discoveryURL)
        openIDProviderCache = provider
        return provider
    }

    /// An OpenID Connect sign-in request (the default sign-in): open its `url` in a browser,
    /// then pass the redirect to ``completeOpenIDConnect(_:redirect:)``.
    /// - Parameters:
    ///   - redirectURI: where Spark sends the browser back (a loopback listener's URI); nil:
    ///     the configuration's, else SparkiOS's default.
    ///   - scopes: the scopes to ask for; `openid` is always among them.
    /// - Throws: ``SparkError/discovery(reason:)``.
    public func makeOpenIDConnectRequest(redirectURI: String? = nil, scopes: [String] = ["openid"]) async throws(SparkError) -> SparkOpenIDConnectRequest {
        SparkOpenIDConnectRequest(provider: try await openIDProvider(), clientID: configuration.clientID,
                                  redirectURI: redirectURI ?? configuration.redirectURI ?? Self.defaultRedirectURI, scopes: scopes)
    }

    /// Checks the redirect of `request` (state first), exchanges its code at the provider's
    /// token endpoint, and verifies the ID token that comes with the tokens: its RS256
    /// signature against the provider's key set, `iss`, `aud`, `exp` and the request's
    /// `nonce`. The session (with the ID token and the identity) is kept only when all hold.
    /// Refreshes then go to the same token endpoint, also in a later run.
    /// - Returns: the verified ID token; ``openIDIdentity`` is its `sub` from now on.
    /// - Throws: ``SparkError/authorization(_:)`` (state mismatch, denial, refused grant),
    ///   ``SparkError/idToken(_:)`` (no session is kept), ``SparkError/invalidOpenIDResponse(reason:)``
    ///   for a token answer without `id_token`, ``SparkError/discovery(reason:)``.
    @discardableResult
    public func completeOpenIDConnect(_ request: SparkOpenIDConnectRequest, redirect: String) async throws(SparkError) -> IDToken {
        let code: String
        do {
            code = try request.code(from: redirect)
        } catch {
            logger.warning("Spark OpenID Connect sign-in failed", metadata: ["error": "\(error)"])
            throw error
        }
        let token = try await exchange(code: code, redirectURI: request.redirectURI, tokenURL: request.provider.tokenEndpoint)
        let verified: IDToken
        do throws(SparkError) {
            guard let idToken = token.idToken else {
                throw SparkError.invalidOpenIDResponse(reason: "the token answer has no id_token")
            }
            verified = try await verify(idToken, nonce: request.nonce, provider: request.provider)
        } catch {
            // A token whose sign-in is not proven is no session.
            await oauth.signOut()
            openIDIdentity = nil
            logger.error("Spark OpenID Connect sign-in refused", metadata: ["error": "\(error)"])
            throw error
        }
        await oauth.updateToken { $0.openIDIdentity = verified.subject }
        openIDIdentity = verified.subject
        logger.info("Spark OpenID Connect sign-in", metadata: ["sub": "\(verified.subject)"])
        return verified
    }

    /// The ID token kept with the session (verified when it was received), read again; nil
    /// without an OpenID Connect session.
    public var sessionIDToken: IDToken? {
        get async {
            guard let raw = await oauth.currentToken?.idToken, let claims = IDToken.unverifiedClaims(of: raw) else { return nil }
            return try? IDToken(claims: claims)
        }
    }

    /// Signs out at Spark as well as here: the session's tokens are deleted at Spark (revoked
    /// at the discovery document's `revocation_endpoint`, RFC 7009: the refresh token, then the
    /// access token), then the session and its stored tokens here, whatever Spark answered.
    /// - Throws: ``SparkError/remoteSignOutFailed(reason:)`` when Spark's deletion failed
    ///   (after the local sign-out).
    public func signOutEverywhere() async throws(SparkError) {
        var failure: SparkError?
        if let token = await oauth.currentToken {
            do {
                try await revoke(token)
            } catch {
                failure = error
            }
        }
        await signOut()
        if let failure {
            logger.error("Spark sign-out at Spark failed; signed out here", metadata: ["error": "\(failure)"])
            if case .remoteSignOutFailed = failure { throw failure }
            throw .remoteSignOutFailed(reason: failure.description)
        }
        logger.info("Spark sign-out at Spark and here")
    }

    // MARK: Internals

    /// `raw` verified with the provider's keys; an unknown key id fetches the key set once more
    /// (the provider may have rotated its keys). `nonce`: the authorization request's (nil for
    /// a refresh's token, which OpenID Connect Core 1.0 §12.2 lets go without one).
    func verify(_ raw: String, nonce: String?, provider: OpenIDProviderMetadata) async throws(SparkError) -> IDToken {
        var refetched = false
        while true {
            let keys: JSONWebKeySet
            if let openIDKeysCache {
                keys = openIDKeysCache
            } else {
                let json = try await fetchJSON(provider.jwksURI, what: "the key set")
                do {
                    keys = try JSONWebKeySet(json: json)
                } catch {
                    throw .discovery(reason: error.description)
                }
                openIDKeysCache = keys
                refetched = true
            }
            do {
                return try IDTokenVerifier(issuer: provider.issuer, clientID: configuration.clientID, keys: keys).verify(raw, nonce: nonce)
            } catch .unknownKey(let keyID) where !refetched {
                logger.info("Spark ID token signed with an unknown key; fetching the key set again", metadata: ["kid": "\(keyID ?? "none")"])
                openIDKeysCache = nil
            } catch {
                throw .idToken(error)
            }
        }
    }

    /// Deletes `token`'s refresh and access tokens at the provider's revocation endpoint; both
    /// are tried, the first failure is thrown.
    private func revoke(_ token: OAuth2Token) async throws(SparkError) {
        let provider = try await openIDProvider()
        guard let endpoint = provider.revocationEndpoint else {
            throw .discovery(reason: "the discovery document names no revocation_endpoint")
        }
        var failure: SparkError?
        for case let (value?, hint) in [(token.refreshToken, "refresh_token"), (token.accessToken, "access_token")] {
            let fields = [("token", value), ("token_type_hint", hint), ("client_id", configuration.clientID),
                          ("client_secret", configuration.clientSecret ?? "")]
            let request = HTTPRequest(method: .post, url: endpoint,
                                      headers: ["Accept": "application/json", "X-SparkApi-User-Agent": userAgent], body: .form(fields))
            do throws(SparkError) {
                let response = try await send(request)
                guard response.isSuccess else {
                    let error = (try? JSON(parsing: response.body))?["error"]?.string.map { ": \($0)" } ?? ""
                    throw .remoteSignOutFailed(reason: "the revocation endpoint answered HTTP \(response.status)\(error)")
                }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// GETs `url` (no token: discovery and keys are public) and reads it as JSON.
    private func fetchJSON(_ url: String, what: String) async throws(SparkError) -> JSON {
        let response = try await send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
        guard response.isSuccess else {
            throw .discovery(reason: "\(what) at \(RedactedURL.describe(url)) answered HTTP \(response.status)")
        }
        do {
            return try JSON(parsing: response.body)
        } catch {
            throw .discovery(reason: "\(what) at \(RedactedURL.describe(url)) is not JSON")
        }
    }

    /// Sends a request that carries no session token, with the retry policy.
    private func send(_ request: HTTPRequest) async throws(SparkError) -> HTTPResponse {
        let cancelled = SparkError.transport(.cancelled(url: RedactedURL.describe(request.url)))
        return try await retryPolicy.retrying(request, service: "Spark", logger: logger, cancelled: cancelled) { () async throws(SparkError) in
            do throws(HTTPClientError) {
                return try await oauth.http.send(request)
            } catch {
                throw .transport(error)
            }
        }
    }
}
