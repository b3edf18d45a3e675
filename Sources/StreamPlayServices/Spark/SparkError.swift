import StreamPlay

/// What went wrong talking to the Spark platform. No case carries a token, a secret, an
/// authorization code or an OpenID signature.
public enum SparkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The API answered with a `{"D": {"Success": false, "Code": N, "Message": ...}}` envelope:
    /// Spark's own error `code` (1020 session expired, 1053 bad attribute, 1055 conflict, ...),
    /// its `message`, and the HTTP `status`.
    case api(code: Int, message: String, status: Int)
    /// The user cancelled the OpenID sign-in (`openid.mode=cancel`).
    case openIDCancelled
    /// The OpenID provider refused the sign-in (`openid.mode=error`), with its `openid.error`.
    case openIDFailed(message: String)
    /// The OpenID return is not a positive assertion this client can use.
    case invalidOpenIDResponse(reason: String)
    /// The OpenID Connect discovery document (or the key set it names) could not be had or
    /// read: no sign-in endpoints to trust.
    case discovery(reason: String)
    /// The OpenID Connect ID token was refused (signature, issuer, audience, expiry, nonce):
    /// the sign-in did not happen, and no session was kept.
    case idToken(IDTokenError)
    /// Signing out at Spark (deleting the session's tokens there) failed: `reason` says how.
    /// The local session and stored tokens were deleted all the same.
    case remoteSignOutFailed(reason: String)
    /// Signing in or renewing the session failed: a state mismatch, a refused grant, no session,
    /// or the session ended (``OAuth2Error/sessionExpired(description:)``: sign in again).
    case authorization(OAuth2Error)
    /// An answer that is not a Spark envelope (not JSON, no `D`).
    case invalidResponse(reason: String, status: Int)
    /// The call was refused before any request: its URL is off the API's origin (scheme, host
    /// and port), where the session's token must not go.
    case invalidRequest(reason: String)
    /// No answer: the network failed or the task was cancelled.
    case transport(HTTPClientError)

    /// Spark's code for ``api(code:message:status:)``; nil for other cases.
    public var code: Int? {
        if case .api(let code, _, _) = self { return code }
        return nil
    }

    /// Whether Spark said the app is over its rate limit (code 1550, which Spark's error table
    /// gives HTTP 503; a 429 is read the same way).
    public var isRateLimited: Bool {
        code == 1550
    }

    /// Whether the session is gone for good and the user must sign in again.
    public var isSessionEnded: Bool {
        switch self {
        case .authorization(.sessionExpired), .authorization(.notAuthenticated), .authorization(.noRefreshToken): true
        default: false
        }
    }

    /// A one-line description.
    public var description: String {
        switch self {
        case .api(let code, let message, let status): "Spark API error \(code) (HTTP \(status)): \(message)"
        case .openIDCancelled: "the Spark sign-in was cancelled by the user"
        case .openIDFailed(let message): "the Spark OpenID sign-in failed: \(message)"
        case .invalidOpenIDResponse(let reason): "invalid Spark OpenID response: \(reason)"
        case .discovery(let reason): "Spark's OpenID Connect discovery failed: \(reason)"
        case .idToken(let error): "Spark's ID token was refused: \(error)"
        case .remoteSignOutFailed(let reason): "signing out at Spark failed: \(reason)"
        case .authorization(let error): "Spark authorization failed: \(error)"
        case .invalidResponse(let reason, let status): "invalid Spark API response (HTTP \(status)): \(reason)"
        case .invalidRequest(let reason): "invalid Spark API request: \(reason)"
        case .transport(let error): error.description
        }
    }
}
