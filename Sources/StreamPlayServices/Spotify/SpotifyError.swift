import StreamPlay

/// What went wrong talking to Spotify. No case carries a token, a secret, an authorization code
/// or a session string.
public enum SpotifyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Web API answered with its error object `{"error": {"status", "message", "reason"?}}`
    /// (after retries, for 429 and 5xx).
    case api(status: Int, message: String, reason: String?)
    /// A player command needs Spotify Premium (reason `PREMIUM_REQUIRED`).
    case premiumRequired(message: String)
    /// A player command found no active Spotify Connect device (reason `NO_ACTIVE_DEVICE`):
    /// open Spotify somewhere, or name a device (``SpotifyClient/devices()``).
    case noActiveDevice(message: String)
    /// HTTP 429 after the retries ran out, or with a Retry-After longer than the client waits.
    case rateLimited(retryAfter: Double?)
    /// HTTP 429 with reason `QUOTA_EXCEEDED`: the app's quota (a development-mode app's, say) is
    /// used up. Not retried: waiting seconds does not bring it back.
    case quotaExceeded(message: String)
    /// The endpoint was taken away from apps in development mode; `restriction` names the rule
    /// (see ``SpotifyRestriction``).
    case endpointRemoved(endpoint: String, restriction: String, status: Int)
    /// A search asked for more results than Spotify allows today (``SpotifyRestriction/searchLimitMaximum``).
    case searchLimitTooLarge(requested: Int, maximum: Int)
    /// The user declined at Spotify's consent page (`error=access_denied`).
    case cancelledByUser
    /// The session ended (its refresh token expired or was revoked: `invalid_grant`); the stored
    /// token was removed. Sign in again.
    case sessionExpired(description: String?)
    /// There is no session: sign in (or restore a session) first.
    case notSignedIn
    /// The redirect URI cannot be used with Spotify (`localhost`, plain http off the loopback
    /// address, none at all). Spotify accepts `http://127.0.0.1:PORT/...` for loopback.
    case invalidRedirectURI(String, reason: String)
    /// Not a Spotify track id, `spotify:track:ID` URI or open.spotify.com track link.
    case invalidTrackID(String)
    /// The track has no `preview_url` (most tracks, and every track for apps registered since
    /// November 2024); full tracks play only in Spotify's own DRM player.
    case noPreview(trackID: String, name: String)
    /// A session string that cannot be read: another key, altered text, or not a session.
    case invalidSession(reason: String)
    /// A seek position that is not a time in a track: negative, not a number, infinite, or
    /// beyond ``SpotifyClient/longestSeek``.
    case invalidSeekPosition(seconds: Double)
    /// Signing in or renewing the session failed otherwise.
    case oauth(OAuth2Error)
    /// No response: the network failed.
    case transport(HTTPClientError)
    /// The request was cancelled.
    case cancelled
    /// A response that is not what the Web API documents (not JSON, a missing member).
    case invalidResponse(reason: String, status: Int)

    /// A one-line description.
    public var description: String {
        switch self {
        case .api(let status, let message, let reason):
            "Spotify API error (HTTP \(status)): \(message)" + (reason.map { " [\($0)]" } ?? "")
        case .premiumRequired(let message): "Spotify Premium is required for playback control: \(message)"
        case .noActiveDevice(let message):
            "no active Spotify device (open Spotify on a device, or pick one with its id): \(message)"
        case .rateLimited(let retryAfter):
            "Spotify rate limit reached" + (retryAfter.map { "; retry after \(ServiceRetryPolicy.wholeSeconds($0)) s" } ?? "")
        case .quotaExceeded(let message): "Spotify quota exceeded (not retried): \(message)"
        case .endpointRemoved(let endpoint, let restriction, let status):
            "Spotify refused \(endpoint) (HTTP \(status)): \(restriction)"
        case .searchLimitTooLarge(let requested, let maximum):
            "a Spotify search may ask for at most \(maximum) results (February 2026 rules); \(requested) asked"
        case .cancelledByUser: "Spotify sign-in was cancelled by the user"
        case .sessionExpired(let description):
            "the Spotify session expired; sign in again" + (description.map { " (\($0))" } ?? "")
        case .notSignedIn: "not signed in to Spotify"
        case .invalidRedirectURI(let uri, let reason): "redirect URI \(RedactedURL.describe(uri)) refused: \(reason)"
        case .invalidTrackID(let text): "not a Spotify track id, URI or link: '\(RedactedURL.describe(text))'"
        case .noPreview(let trackID, let name):
            "\"\(name)\" (spotify:track:\(trackID)) has no preview; Spotify plays full tracks only in its own player"
        case .invalidSession(let reason): "invalid Spotify session string: \(reason)"
        case .invalidSeekPosition(let seconds):
            "cannot seek to \(seconds) s: a position is a finite number of seconds from 0 up to \(Int(SpotifyClient.longestSeek)) s"
        case .oauth(let error): "Spotify sign-in: \(error)"
        case .transport(let error): "Spotify request failed: \(error)"
        case .cancelled: "the Spotify request was cancelled"
        case .invalidResponse(let reason, let status): "invalid Spotify response (HTTP \(status)): \(reason)"
        }
    }

    /// The error for a Web API answer with an error status on `path` (under the API's base
    /// URL): a refusal (403, 404, 410) of an endpoint development mode took away names the rule.
    static func from(_ response: HTTPResponse, path: String, method: HTTPRequest.Method) -> SpotifyError {
        let error = from(response)
        guard [403, 404, 410].contains(response.status), case .api = error,
              let restriction = SpotifyRestriction.restriction(forPath: path, method: method) else { return error }
        let endpoint = "\(method) " + (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path)
        return .endpointRemoved(endpoint: endpoint, restriction: restriction, status: response.status)
    }

    /// The error for a Web API answer with an error status, from its error object.
    static func from(_ response: HTTPResponse) -> SpotifyError {
        let object = (try? JSON(parsing: response.body))?["error"]
        // Some errors (401 from the accounts side, proxies) are not Web API error objects.
        let message = object?["message"]?.string ?? object?.string ?? "HTTP \(response.status)"
        let reason = object?["reason"]?.string
        // The reason names the case whatever the status (Spotify documents 403 and 404 for them).
        switch (response.status, reason) {
        case (_, "PREMIUM_REQUIRED"): return .premiumRequired(message: message)
        case (_, "NO_ACTIVE_DEVICE"): return .noActiveDevice(message: message)
        case (429, "QUOTA_EXCEEDED"): return .quotaExceeded(message: message)
        case (429, _): return .rateLimited(retryAfter: response.retryAfter)
        default: return .api(status: object?["status"]?.int ?? response.status, message: message, reason: reason)
        }
    }

    /// The error for an OAuth failure: a declined consent is a cancellation by the user, a
    /// refused refresh token an ended session.
    static func from(_ error: OAuth2Error) -> SpotifyError {
        switch error {
        case .accessDenied: .cancelledByUser
        case .sessionExpired(let description): .sessionExpired(description: description)
        case .notAuthenticated: .notSignedIn
        case .transport(.cancelled): .cancelled
        case .transport(let transport): .transport(transport)
        default: .oauth(error)
        }
    }
}
