import StreamPlay
import StreamPlayServices

/// A fake service that signs users in with OAuth 2 and keeps its tokens in a
/// ``FakeTokenAuthority``: what ``FakeSoundCloud``, ``FakeSpotify`` and ``FakeSpark`` share.
///
/// A fake conforms by naming its client, hosts and default user and by exposing its transport
/// and token authority; this protocol's extension then gives it the client settings
/// (``configuration``), the sign-in a test approves (``authorize(_:user:)``) and the token
/// controls (``tokensIssued(grantType:)``, ``expireAccessTokens()``,
/// ``revokeRefreshTokens()``). How the API answers an expired or revoked token is each fake's
/// own: its type documentation says.
public protocol FakeOAuthService: AnyObject, Sendable {
    /// The service the fake stands for: its public URLs are the client settings' defaults.
    static var service: StreamingService { get }
    /// The client id the fake accepts.
    static var clientID: String { get }
    /// The client secret the fake accepts.
    static var clientSecret: String { get }
    /// The API host.
    static var apiHost: String { get }
    /// The user a sign-in is for unless told otherwise.
    static var defaultUser: String { get }
    /// Whether an authorization code is bound to the PKCE challenge its request carries (true
    /// by default; false for a service without PKCE).
    static var bindsPKCEChallenge: Bool { get }

    /// The transport the fake answers on.
    var transport: InMemoryHTTPTransport { get }
    /// The fake's codes and tokens.
    var tokenAuthority: FakeTokenAuthority { get }
}

extension FakeOAuthService {
    /// True: an authorization code is bound to the request's PKCE challenge.
    public static var bindsPKCEChallenge: Bool { true }

    /// The service settings of a client of this fake: its client id and secret (set
    /// `clientSecret` to nil for a public client, where the service has them), the service's
    /// public URLs and a loopback redirect URI on 127.0.0.1.
    public var configuration: ServiceConfiguration {
        var settings = ServiceConfiguration.defaults(for: Self.service)
        settings.clientID = Self.clientID
        settings.clientSecret = Self.clientSecret
        settings.redirectURI = "http://127.0.0.1:8765/callback"
        return settings
    }

    /// The user approves `request`: the redirect URL the browser would be sent to, with a code
    /// bound to the request's redirect URI, scopes and (see ``bindsPKCEChallenge``) PKCE
    /// challenge. Pass it to the client's `completeAuthorization(_:redirect:)`.
    /// - Parameters:
    ///   - request: the sign-in the client made (`makeAuthorizationRequest()`).
    ///   - user: who signs in; ``defaultUser`` unless given.
    public func authorize(_ request: AuthorizationRequest, user: String = Self.defaultUser) -> String {
        FakeOAuth.approve(request.url, user: user, authority: tokenAuthority, bindsChallenge: Self.bindsPKCEChallenge)
    }

    /// How many tokens the token endpoint issued for `grantType` (`client_credentials`,
    /// `authorization_code`, `refresh_token`).
    public func tokensIssued(grantType: String) -> Int {
        tokenAuthority.grantCount(grantType)
    }

    /// Every access token issued so far is refused from now on, as the service refuses an
    /// expired one (the fake's type documentation says how).
    public func expireAccessTokens() {
        tokenAuthority.expireAccessTokens()
    }

    /// Every refresh token issued so far is refused (`invalid_grant`) from now on.
    public func revokeRefreshTokens() {
        tokenAuthority.revokeRefreshTokens()
    }
}

// MARK: What the fakes' routes share

extension FakeOAuthService {
    /// Sends requests for exactly `path` on `host` to `answer`, given this fake. The route
    /// holds the fake weakly, since the fake owns its transport: once the fake is released the
    /// route answers ``FakeOAuth/gone(_:)``.
    func route(_ method: HTTPRequest.Method? = nil, host: String, path: String,
               to answer: @escaping @Sendable (Self, RecordedRequest) -> HTTPResponse) {
        transport.route(method, host: host, path: path, to: whileAlive(answer))
    }

    /// Sends requests on `host` whose path starts with `pathPrefix` to `answer`, given this
    /// fake (held weakly, as ``route(_:host:path:to:)`` holds it).
    func route(_ method: HTTPRequest.Method? = nil, host: String, pathPrefix: String,
               to answer: @escaping @Sendable (Self, RecordedRequest) -> HTTPResponse) {
        transport.route(method, host: host, pathPrefix: pathPrefix, to: whileAlive(answer))
    }

    private func whileAlive(_ answer: @escaping @Sendable (Self, RecordedRequest) -> HTTPResponse)
        -> InMemoryHTTPTransport.Handler {
        { [weak self] request in
            guard let self else { return FakeOAuth.gone(request) }
            return answer(self, request)
        }
    }

    /// Answers the next `count` API requests whose path starts with `pathPrefix` with `status`,
    /// `Retry-After: retryAfter` (when given) and `body`, the service's error object.
    func failAPIRequests(_ count: Int, status: Int, retryAfter: Double?, pathPrefix: String, body: JSON) {
        transport.failNext(count, status: status, retryAfter: retryAfter, host: Self.apiHost, pathPrefix: pathPrefix,
                           body: body.encoded())
    }
}
