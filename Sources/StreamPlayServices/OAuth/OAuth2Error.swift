import StreamPlay

/// What went wrong while authorizing or calling an API on a user's behalf. No case carries a
/// token, a secret or an authorization code.
public enum OAuth2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The redirect's `state` is not the one sent: possibly a forged redirect (CSRF).
    case stateMismatch
    /// The user declined, or the server refused the authorization (`error=access_denied`).
    case accessDenied(description: String?)
    /// The redirect carried neither a code nor an error.
    case invalidRedirect(reason: String)
    /// The token endpoint answered with an OAuth error (`invalid_client`, ...).
    case tokenRequestFailed(error: String, description: String?, status: Int)
    /// The refresh token was refused (`invalid_grant`): expired or revoked. The session was
    /// reset; the user must sign in again.
    case sessionExpired(description: String?)
    /// There is no session: sign in first.
    case notAuthenticated
    /// There is no refresh token to renew the session with.
    case noRefreshToken
    /// A response that is not what the protocol says (not JSON, no access_token).
    case invalidResponse(reason: String, status: Int)
    /// No response: the network failed, or the task was cancelled.
    case transport(HTTPClientError)
    /// The loopback listener for the redirect could not be opened or gave up.
    case redirectListenerFailed(reason: String)
    /// No redirect arrived in time.
    case timedOut(seconds: Double)
    /// The OpenID Connect ID token that came with a refresh failed its checks (OpenID Connect
    /// Core 1.0 §12.2): the refreshed tokens were not kept, and the session was ended.
    case idTokenRefused(IDTokenError)

    /// A one-line description.
    public var description: String {
        switch self {
        case .stateMismatch: "the authorization redirect's state does not match the request (possible forgery)"
        case .accessDenied(let description): "authorization denied" + (description.map { ": \($0)" } ?? "")
        case .invalidRedirect(let reason): "invalid authorization redirect: \(reason)"
        case .tokenRequestFailed(let error, let description, let status):
            "token request failed (HTTP \(status)): \(error)" + (description.map { ": \($0)" } ?? "")
        case .sessionExpired(let description):
            "the session expired; sign in again" + (description.map { " (\($0))" } ?? "")
        case .notAuthenticated: "not signed in"
        case .noRefreshToken: "the session has no refresh token; sign in again"
        case .invalidResponse(let reason, let status): "invalid response (HTTP \(status)): \(reason)"
        case .transport(let error): error.description
        case .redirectListenerFailed(let reason): "loopback redirect listener failed: \(reason)"
        case .timedOut(let seconds): "no authorization redirect within \(OAuth2Token.wholeSeconds(seconds)) s"
        case .idTokenRefused(let error): "the refreshed session's ID token was refused (session ended): \(error)"
        }
    }
}
