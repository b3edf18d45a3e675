import StreamPlay

/// One OpenID Connect sign-in at Spark (authorization code flow, OpenID Connect Core §3.1):
/// the URL for the browser, and what the client keeps to check the redirect and the ID token.
///
/// Make one with ``SparkClient/makeOpenIDConnectRequest(redirectURI:scopes:)`` and pass the
/// URL the browser was sent back to to ``SparkClient/completeOpenIDConnect(_:redirect:)``.
///
/// Its description, debug description and mirror leave out ``state``, ``nonce`` and the URL's
/// query: they tie the redirect and the ID token to this sign-in.
public struct SparkOpenIDConnectRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where to send the user: the provider's `authorization_endpoint` with `response_type=code`,
    /// `client_id`, `redirect_uri`, `scope`, `state` and `nonce`.
    public let url: String
    /// The random `state` sent; the redirect must bring it back unchanged.
    public let state: String
    /// The random `nonce` sent; the ID token must carry it.
    public let nonce: String
    /// The `redirect_uri` sent; the code is exchanged with exactly this one.
    public let redirectURI: String
    /// The scopes asked for (`openid` always among them).
    public let scopes: [String]
    /// The provider's endpoints the sign-in goes through.
    public let provider: OpenIDProviderMetadata

    /// A request to `provider` for `clientID`, with a fresh state and nonce unless given.
    public init(provider: OpenIDProviderMetadata, clientID: String, redirectURI: String, scopes: [String] = ["openid"],
                state: String? = nil, nonce: String? = nil) {
        self.provider = provider
        self.redirectURI = redirectURI
        self.scopes = scopes.contains("openid") ? scopes : ["openid"] + scopes
        self.state = state ?? Base64URL.encode(RandomBytes.make(16))
        self.nonce = nonce ?? Base64URL.encode(RandomBytes.make(16))
        let parameters = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
                          ("scope", self.scopes.joined(separator: " ")), ("state", self.state), ("nonce", self.nonce)]
        let endpoint = provider.authorizationEndpoint
        url = endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(parameters)
    }

    /// The code in `redirect` (the full URL or its query), after checking the state.
    /// - Throws: ``SparkError/authorization(_:)`` with ``OAuth2Error/stateMismatch`` before
    ///   anything else is believed, ``OAuth2Error/accessDenied(description:)``,
    ///   ``OAuth2Error/tokenRequestFailed(error:description:status:)`` for another error, or
    ///   ``OAuth2Error/invalidRedirect(reason:)`` without a code.
    func code(from redirect: String) throws(SparkError) -> String {
        do {
            return try AuthorizationRequest.code(from: redirect, state: state)
        } catch {
            throw .authorization(error)
        }
    }

    /// `SparkOpenIDConnectRequest(authorize URL without its query, redirect, scopes)`; no state
    /// or nonce.
    public var description: String {
        "SparkOpenIDConnectRequest(\(RedactedURL.describe(url)), redirect \(RedactedURL.describe(redirectURI)), "
            + "scope \(scopes.joined(separator: " ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: no state or nonce.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": RedactedURL.describe(url), "redirectURI": RedactedURL.describe(redirectURI),
                                "scopes": scopes], displayStyle: .struct)
    }
}
