/// Where one service lives and which app registration talks to it: the client id and secret,
/// and every base URL, so that the same code can be pointed at a test server.
///
/// ``defaults(for:)`` holds the services' public endpoints; ``ServiceSettings`` overlays the
/// config file and the `STREAMPLAY_<SERVICE>_*` environment variables.
public struct ServiceConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The service.
    public var service: StreamingService
    /// The app's client id (empty: not configured).
    public var clientID: String
    /// The app's client secret, for confidential clients. Never logged or shown.
    public var clientSecret: String?
    /// The OAuth 2 authorization endpoint, opened in the browser.
    public var authorizationURL: String
    /// The token endpoint.
    public var tokenURL: String
    /// The API's base URL, without a trailing slash (SoundCloud: https://api.soundcloud.com;
    /// Spotify and Spark include their /v1).
    public var apiURL: String
    /// The redirect URI to register and send; nil: a loopback listener's
    /// `http://127.0.0.1:PORT/callback`.
    public var redirectURI: String?
    /// Scopes asked for at sign-in.
    public var scopes: [String]
    /// Spark's OpenID endpoint (OpenID and Hybrid sign-in).
    public var openIDURL: String?
    /// Spark: the OpenID Connect discovery document (`.well-known/openid-configuration`), the
    /// default sign-in's endpoints and keys.
    public var discoveryURL: String?
    /// Spark: the `X-SparkApi-User-Agent` value, the app's name as registered with Spark (nil:
    /// the client's default).
    public var userAgent: String?
    /// Spotify: the app's own token swap service, which holds the secret (optional).
    public var tokenSwapURL: String?
    /// Spotify: the app's own token refresh service, paired with ``tokenSwapURL``.
    public var tokenRefreshURL: String?
    /// Spotify: whether the token swap service forwards `code_verifier` to Spotify. False by
    /// default (the seed's swap service forwards only `code`): sign-ins through a swap service
    /// then send no PKCE challenge, since a code issued for one cannot be redeemed without its
    /// verifier. Config key `swap_forwards_code_verifier` (`true`/`false`).
    public var tokenSwapForwardsCodeVerifier: Bool = false

    /// A configuration with every field given.
    public init(service: StreamingService, clientID: String, clientSecret: String? = nil,
                authorizationURL: String, tokenURL: String, apiURL: String, redirectURI: String? = nil,
                scopes: [String] = [], openIDURL: String? = nil, tokenSwapURL: String? = nil,
                tokenRefreshURL: String? = nil, discoveryURL: String? = nil, userAgent: String? = nil) {
        self.service = service
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.apiURL = Self.trimmingTrailingSlash(apiURL)
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.openIDURL = openIDURL
        self.tokenSwapURL = tokenSwapURL
        self.tokenRefreshURL = tokenRefreshURL
        self.discoveryURL = discoveryURL
        self.userAgent = userAgent
    }

    /// The service's public endpoints and the scopes StreamPlay needs; no client id (each app
    /// registers its own).
    public static func defaults(for service: StreamingService) -> ServiceConfiguration {
        switch service {
        case .soundcloud:
            ServiceConfiguration(service: service, clientID: "",
                                 authorizationURL: "https://secure.soundcloud.com/authorize",
                                 tokenURL: "https://secure.soundcloud.com/oauth/token",
                                 apiURL: "https://api.soundcloud.com")
        case .spotify:
            ServiceConfiguration(service: service, clientID: "",
                                 authorizationURL: "https://accounts.spotify.com/authorize",
                                 tokenURL: "https://accounts.spotify.com/api/token",
                                 apiURL: "https://api.spotify.com/v1",
                                 scopes: ["user-read-private", "user-read-email", "user-read-playback-state",
                                          "user-modify-playback-state", "user-read-currently-playing"])
        case .spark:
            ServiceConfiguration(service: service, clientID: "",
                                 authorizationURL: "https://sparkplatform.com/oauth2",
                                 tokenURL: "https://sparkapi.com/v1/oauth2/grant",
                                 apiURL: "https://sparkapi.com/v1",
                                 openIDURL: "https://sparkplatform.com/openid",
                                 discoveryURL: "https://sparkplatform.com/.well-known/openid-configuration")
        }
    }

    /// The OAuth 2 settings of this service; `redirectURI` overrides ``redirectURI`` (a
    /// loopback listener's URI).
    public func oauth2Configuration(redirectURI: String? = nil,
                                    clientAuthentication: OAuth2Configuration.ClientAuthentication? = nil,
                                    extraAuthorizationParameters: [(String, String)] = []) -> OAuth2Configuration {
        OAuth2Configuration(clientID: clientID, clientSecret: clientSecret, authorizationURL: authorizationURL,
                            tokenURL: tokenURL, redirectURI: redirectURI ?? self.redirectURI, scopes: scopes,
                            clientAuthentication: clientAuthentication,
                            extraAuthorizationParameters: extraAuthorizationParameters)
    }

    /// `base` and `path` joined with one slash.
    public func apiURL(_ path: String) -> String {
        if path.hasPrefix("http://") || path.hasPrefix("https://") { return path }
        return path.hasPrefix("/") ? apiURL + path : apiURL + "/" + path
    }

    static func trimmingTrailingSlash(_ url: String) -> String {
        var url = Substring(url)
        while url.hasSuffix("/") { url = url.dropLast() }
        return String(url)
    }

    /// The service, client id and URLs; never the secret.
    public var description: String {
        var parts = ["client \(clientID.isEmpty ? "(none)" : clientID)",
                     clientSecret == nil ? "no secret" : "secret [redacted]",
                     "auth \(authorizationURL)", "token \(tokenURL)", "api \(apiURL)"]
        if let redirectURI { parts.append("redirect \(redirectURI)") }
        if let openIDURL { parts.append("openid \(openIDURL)") }
        if let discoveryURL { parts.append("discovery \(discoveryURL)") }
        if let userAgent { parts.append("user agent \(userAgent)") }
        if let tokenSwapURL { parts.append("swap \(tokenSwapURL)") }
        if let tokenRefreshURL { parts.append("refresh \(tokenRefreshURL)") }
        return "\(service)(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``: debug output must not show the secret either.
    public var debugDescription: String { description }

    /// What `dump` and the debugger show: no secret.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
