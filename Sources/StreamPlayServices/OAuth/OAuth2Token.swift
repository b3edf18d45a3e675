import FoundationEssentials

/// Tokens from a token endpoint. Its description shows no secret.
public struct OAuth2Token: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The access token sent with API requests.
    public var accessToken: String
    /// The token type the server named ("Bearer" mostly).
    public var tokenType: String
    /// The refresh token, when the grant gave one. Servers that rotate them issue a new one
    /// with every refresh; the newest is the one to keep.
    public var refreshToken: String?
    /// When the access token expires, if the server said (`expires_in`).
    public var expiresAt: Date?
    /// The scopes granted, space-separated, if the server said.
    public var scope: String?
    /// The redirect URI the session's authorization code was issued for. Kept with the token
    /// because some services (Spark) want it again with every refresh, also in a later run.
    public var redirectURI: String?
    /// The token endpoint that issued the session, when it is not the configuration's (Spark's
    /// OpenID Connect endpoint, read from its discovery document): refreshes go there, also in
    /// a later run.
    public var tokenURL: String?
    /// The OpenID Connect ID token that came with the sign-in (a JWT), as received: the caller
    /// verifies it, and a session whose token failed is not kept. Stored with the session so
    /// that a later run can read its claims; never logged.
    public var idToken: String?
    /// Who signed in, as the session's OpenID sign-in said (an OpenID Connect `sub`, or an
    /// OpenID 2.0 identifier), kept with the session so that a later run knows it too.
    public var openIDIdentity: String?

    /// A token.
    public init(accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil,
                expiresAt: Date? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
    }

    /// `self` with the sign-in's ID token and identity from `previous`: a refresh answers new
    /// tokens for the same session (an ID token it sends is kept only once verified, by the
    /// client's ``OAuth2Client/RefreshedIDTokenCheck``).
    func keepingSignIn(of previous: OAuth2Token) -> OAuth2Token {
        var kept = self
        kept.idToken = previous.idToken
        kept.openIDIdentity = previous.openIDIdentity
        return kept
    }

    /// Whether the access token is expired, or will be within `margin` seconds of `now`.
    public func isExpired(margin: Double = 0, now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin
    }

    /// The token's kind and expiry; never the tokens themselves.
    public var description: String {
        var parts = ["type \(tokenType)", refreshToken == nil ? "no refresh token" : "refresh token"]
        if let expiresAt { parts.append("expires in \(Self.wholeSeconds(expiresAt.timeIntervalSinceNow)) s") }
        if let scope { parts.append("scope \(scope)") }
        return "OAuth2Token(\(parts.joined(separator: ", ")))"
    }

    /// `seconds` as a whole number that cannot trap, whatever a server sent.
    static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return 0 }
        return Int(max(min(seconds, 1e12), -1e12))
    }
}
