import StreamPlay

/// One authorization-code request: the URL for the browser, and what the client keeps to check
/// and complete the redirect (the state and the PKCE verifier).
public struct AuthorizationRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where to send the user.
    public let url: String
    /// The random `state` sent; the redirect must bring it back unchanged.
    public let state: String
    /// The PKCE pair; the verifier goes with the code exchange when ``sendsCodeChallenge``.
    public let pkce: PKCE
    /// Whether the URL carries the PKCE challenge (``OAuth2Configuration/usesPKCE``); when not,
    /// the exchange sends no verifier either.
    public let sendsCodeChallenge: Bool
    /// The redirect URI sent (the exchange must send the same).
    public let redirectURI: String?

    /// A request for `configuration`, with a fresh state and PKCE pair unless given.
    public init(configuration: OAuth2Configuration, state: String? = nil, pkce: PKCE = PKCE()) {
        self.state = state ?? Base64URL.encode(RandomBytes.make(16))
        self.pkce = pkce
        sendsCodeChallenge = configuration.usesPKCE
        redirectURI = configuration.redirectURI
        var parameters: [(String, String)] = [("response_type", "code"), ("client_id", configuration.clientID)]
        if let redirectURI = configuration.redirectURI { parameters.append(("redirect_uri", redirectURI)) }
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        parameters.append(("state", self.state))
        if sendsCodeChallenge { parameters += [("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method)] }
        parameters += configuration.extraAuthorizationParameters
        let separator = configuration.authorizationURL.contains("?") ? "&" : "?"
        url = configuration.authorizationURL + separator + FormEncoding.encode(parameters)
    }

    /// The code in `redirect` (the full redirect URL, or just its query), after checking the
    /// state.
    /// - Throws: ``OAuth2Error/stateMismatch``, ``OAuth2Error/accessDenied(description:)`` for
    ///   `error=access_denied` (the user declined), ``OAuth2Error/tokenRequestFailed(error:description:status:)``
    ///   for other errors, ``OAuth2Error/invalidRedirect(reason:)`` without code or error.
    public func code(from redirect: String) throws(OAuth2Error) -> String {
        try Self.code(from: redirect, state: state)
    }

    /// The code in `redirect` of a request that sent `state`, after checking it: the checks of
    /// ``code(from:)``, for sign-ins that are no `AuthorizationRequest` (Spark's OpenID Connect).
    static func code(from redirect: String, state: String) throws(OAuth2Error) -> String {
        let fields = queryFields(of: redirect)
        func value(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        // A forged redirect is refused before anything else in it is believed.
        guard value("state") == state else { throw .stateMismatch }
        if let error = value("error") {
            if error == "access_denied" { throw .accessDenied(description: value("error_description")) }
            throw .tokenRequestFailed(error: error, description: value("error_description"), status: 0)
        }
        guard let code = value("code"), !code.isEmpty else {
            throw .invalidRedirect(reason: "neither code nor error in the redirect")
        }
        return code
    }

    /// The query (or fragment) fields of a URL, or of a bare query string.
    static func queryFields(of text: String) -> [(String, String)] {
        var query = Substring(text.trimmedWhitespace)
        if let mark = query.firstIndex(of: "?") { query = query[query.index(after: mark)...] }
        else if query.contains("://") { query = "" }
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return FormEncoding.decode(query)
    }

    /// Where the request goes; not the state, the verifier or the URL's query (which holds
    /// the state).
    public var description: String {
        "AuthorizationRequest(\(RedactedURL.describe(url)), redirect \(redirectURI ?? "none"))"
    }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// What `dump` shows: no state or verifier.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": RedactedURL.describe(url), "redirectURI": redirectURI as Any])
    }
}
