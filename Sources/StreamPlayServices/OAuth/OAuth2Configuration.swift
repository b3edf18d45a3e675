import StreamPlay

/// Where and how a client authorizes with one OAuth 2 server.
public struct OAuth2Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How the client proves who it is at the token endpoint (RFC 6749 2.3).
    public enum ClientAuthentication: Sendable, Equatable {
        /// HTTP Basic with the client id and secret (client_secret_basic), the default.
        case basic
        /// `client_id` and `client_secret` in the form body (client_secret_post).
        case formFields
        /// A public client: `client_id` in the body, no secret (PKCE protects the code).
        case none
        /// The token endpoint is the app's own token swap service, which holds the secret and
        /// adds the credentials itself: the client sends none.
        case tokenService
    }

    /// How token requests carry their fields.
    public enum TokenRequestEncoding: Sendable, Equatable {
        /// `application/x-www-form-urlencoded`, as RFC 6749 says.
        case form
        /// A JSON object of the same fields (Spark's /v1/oauth2/grant).
        case json
    }

    /// The client id.
    public var clientID: String
    /// The client secret, for confidential clients. Never logged or shown.
    public var clientSecret: String?
    /// The authorization endpoint (the browser goes there).
    public var authorizationURL: String
    /// The token endpoint.
    public var tokenURL: String
    /// Where refresh requests go, when not to ``tokenURL`` (a token refresh service).
    public var refreshURL: String?
    /// How token requests are encoded.
    public var tokenRequestEncoding: TokenRequestEncoding
    /// The redirect URI registered for the client (a loopback URI for a native app).
    public var redirectURI: String?
    /// Scopes asked for.
    public var scopes: [String]
    /// How the client authenticates at the token endpoint.
    public var clientAuthentication: ClientAuthentication
    /// Extra parameters of the authorization URL (Spotify's `show_dialog`, for one).
    public var extraAuthorizationParameters: [(String, String)]
    /// A token is refreshed this many seconds before it expires, so that a request never
    /// leaves with one that runs out on the way.
    public var refreshMargin: Double
    /// Headers sent with every request to the token endpoint (and ``refreshURL``), the code
    /// exchange and refreshes alike: a service's own client header (Spark refuses its grant
    /// without `X-SparkApi-User-Agent`). None by default. The client's own `Authorization`
    /// (for ``ClientAuthentication/basic``) wins over one given here.
    public var tokenRequestHeaders: HTTPHeaders
    /// Whether refresh requests carry `redirect_uri`, as RFC 6749 does not ask but Spark's
    /// grant endpoint does: the redirect URI the session's code was issued for (kept with the
    /// token, so a later run sends it too), else ``redirectURI``. False by default.
    public var refreshIncludesRedirectURI: Bool
    /// Whether authorization requests carry a PKCE challenge (S256) and code exchanges its
    /// verifier. True by default; false only where the code is redeemed by something that
    /// cannot pass the verifier on (a token swap service that forwards only `code`), since a
    /// code issued for a challenge cannot be redeemed without it.
    public var usesPKCE: Bool = true

    /// A configuration; a client without a secret is public (``ClientAuthentication/none``).
    /// The defaults are plain RFC 6749: form bodies, no extra headers, no `redirect_uri` on
    /// refreshes.
    public init(clientID: String, clientSecret: String? = nil, authorizationURL: String, tokenURL: String,
                redirectURI: String? = nil, scopes: [String] = [],
                clientAuthentication: ClientAuthentication? = nil,
                extraAuthorizationParameters: [(String, String)] = [], refreshMargin: Double = 60,
                refreshURL: String? = nil, tokenRequestEncoding: TokenRequestEncoding = .form,
                tokenRequestHeaders: HTTPHeaders = [:], refreshIncludesRedirectURI: Bool = false) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.clientAuthentication = clientAuthentication ?? (clientSecret == nil ? .none : .basic)
        self.extraAuthorizationParameters = extraAuthorizationParameters
        self.refreshMargin = refreshMargin
        self.refreshURL = refreshURL
        self.tokenRequestEncoding = tokenRequestEncoding
        self.tokenRequestHeaders = tokenRequestHeaders
        self.refreshIncludesRedirectURI = refreshIncludesRedirectURI
    }

    /// The client id and endpoints; never the secret.
    public var description: String {
        "OAuth2Configuration(client \(clientID), \(clientSecret == nil ? "no secret" : "secret [redacted]"), "
            + "authorize \(RedactedURL.describe(authorizationURL)), token \(RedactedURL.describe(tokenURL)))"
    }

    /// The same as ``description``: debug output must not show the secret either.
    public var debugDescription: String { description }

    /// What `dump` and the debugger show: no secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientID": clientID, "clientSecret": clientSecret == nil ? "nil" : "[redacted]",
                                "authorizationURL": authorizationURL, "tokenURL": tokenURL,
                                "redirectURI": redirectURI as Any, "scopes": scopes])
    }
}
