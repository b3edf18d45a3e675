import FoundationEssentials
import StreamPlay

/// What went wrong talking to SoundCloud. No case carries a token, a secret, an authorization
/// code or a CDN signature: URLs in them are redacted.
public enum SoundCloudError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The API answered an error (its body parsed): 400, 401 after a renewal, 422 validation
    /// problems (see ``SoundCloudErrorBody/errors``), 5xx after the retries ran out, ...
    case api(SoundCloudErrorBody)
    /// HTTP 429 after the retries ran out (or with a wait longer than the client will sleep).
    /// - Parameters:
    ///   - resetTime: when the limit resets (`reset_time` of the body), if it said.
    ///   - retryAfter: the Retry-After header's seconds, if sent.
    case rateLimited(resetTime: Date?, retryAfter: Double?)
    /// HTTP 404: no such track, user, rendition or link.
    case notFound(SoundCloudErrorBody)
    /// HTTP 403: the token may not do this (a private resource). The app's own token on a
    /// user's endpoint is answered 401: ``SoundCloudError/userSignInRequired(_:)``.
    case forbidden(SoundCloudErrorBody)
    /// An endpoint that needs a signed-in user (`/me`, uploads) refused the app's own token
    /// (client credentials) with HTTP 401, as the OpenAPI lists for them. The token is not
    /// renewed for it: a new app token would be refused the same way. Sign in as a user.
    case userSignInRequired(SoundCloudErrorBody)
    /// The track streams only in formats this engine cannot decode yet (AAC HLS); StreamPlay
    /// plays MP3 only.
    case notPlayableYet(title: String, renditions: [String])
    /// Only a preview (a 30 s clip) of the track can be streamed: its `access` is `preview`, or
    /// every full-track rendition turned out to serve a snippet (a `/preview/` path on the CDN,
    /// an HLS playlist far shorter than the track). Pass `allowPreview: true` to take it,
    /// flagged as a preview.
    case previewOnly(title: String)
    /// The track's `access` is `blocked`: SoundCloud shows its metadata but streams nothing of
    /// it to this user or app (region, rights, the uploader's settings).
    case blocked(title: String)
    /// The track streams only with DRM (`ctr-encrypted-hls` Widevine, `cbc-encrypted-hls`
    /// FairPlay, or an HLS playlist whose key method is `SAMPLE-AES`): no third-party player
    /// can decrypt it.
    case drmProtected(title: String, renditions: [String])
    /// SoundCloud refused a legacy feature of the 2012 API that today's OpenAPI no longer lists
    /// (connections to other networks, an upload's `post_to` or `shared_to`): the answer's
    /// status (404, 410 or 400) and message.
    case legacyFeatureUnavailable(feature: String, status: Int, message: String)
    /// The track has no stream at all (not streamable, no renditions, or each one refused).
    case noStream(title: String, reason: String)
    /// Signing in or renewing the session failed (``OAuth2Error/sessionExpired(description:)``
    /// when the refresh token was refused, ``OAuth2Error/notAuthenticated`` before sign-in).
    case oauth(OAuth2Error)
    /// No response: the network failed.
    case transport(HTTPClientError)
    /// The request was cancelled.
    case cancelled
    /// A response that is not what the API documents (not JSON, a missing member).
    case invalidResponse(reason: String, status: Int)
    /// The request could not be made as asked (a malformed id, a URL off the API's host).
    case invalidRequest(reason: String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .api(let body): "SoundCloud API error: \(body)"
        case .rateLimited(let resetTime, let retryAfter):
            "SoundCloud rate limit reached" + (resetTime.map { "; resets at \($0)" } ?? "")
                + (retryAfter.map { "; retry after \(ServiceRetryPolicy.wholeSeconds($0)) s" } ?? "")
        case .notFound(let body): "not found on SoundCloud: \(body.message)"
        case .forbidden(let body): "SoundCloud refused access (HTTP 403): \(body.message)"
        case .userSignInRequired:
            "this SoundCloud request needs a signed-in user, not the app's own token (HTTP 401): "
                + "run `streamplay login soundcloud`"
        case .notPlayableYet(let title, let renditions):
            "\"\(title)\" is not playable yet: SoundCloud streams it only as \(renditions.joined(separator: ", ")), "
                + "and StreamPlay decodes MP3 only"
        case .previewOnly(let title): "only a preview of \"\(title)\" can be streamed (allow previews to play it)"
        case .blocked(let title): "\"\(title)\" is blocked on SoundCloud for this account: no stream, metadata only"
        case .drmProtected(let title, let renditions):
            "\"\(title)\" streams only with DRM (\(renditions.joined(separator: ", "))), which StreamPlay cannot decrypt"
        case .legacyFeatureUnavailable(let feature, let status, let message):
            "SoundCloud no longer offers \(feature) (a legacy feature of the 2012 API, not in today's OpenAPI): HTTP \(status)"
                + (message.isEmpty ? "" : ", \(message)")
        case .noStream(let title, let reason): "no stream for \"\(title)\": \(reason)"
        case .oauth(let error): "SoundCloud sign-in: \(error)"
        case .transport(let error): "SoundCloud request failed: \(error)"
        case .cancelled: "the SoundCloud request was cancelled"
        case .invalidResponse(let reason, let status): "invalid SoundCloud response (HTTP \(status)): \(reason)"
        case .invalidRequest(let reason): "invalid SoundCloud request: \(reason)"
        }
    }

    /// The error for a response with an error status (4xx, 5xx).
    static func from(_ response: HTTPResponse) -> SoundCloudError {
        let body = SoundCloudErrorBody(response: response)
        switch response.status {
        case 404: return .notFound(body)
        case 403: return .forbidden(body)
        case 429: return .rateLimited(resetTime: body.resetTime, retryAfter: response.retryAfter)
        default: return .api(body)
        }
    }

    /// The error for an OAuth failure; a cancelled transfer is a cancellation.
    static func from(_ error: OAuth2Error) -> SoundCloudError {
        switch error {
        case .transport(.cancelled): .cancelled
        case .transport(let transport): .transport(transport)
        default: .oauth(error)
        }
    }
}
