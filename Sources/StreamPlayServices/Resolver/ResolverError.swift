/// Why a link could not be turned into something to play. Never carries a token or a signed
/// URL's signature.
public enum ResolverError: Error, Sendable, CustomStringConvertible {
    /// The link is not one the resolver can play, and why.
    case unsupportedLink(String, reason: String)
    /// The link needs a service that is not configured (no client id) or not signed in.
    case serviceUnavailable(StreamingService, reason: String)
    /// The track exists but cannot be played here (AAC only, preview only while previews are
    /// not allowed, blocked, DRM only, no preview), and why.
    case notPlayable(String, reason: String)
    /// The service answered with an error.
    case service(StreamingService, description: String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .unsupportedLink(let link, let reason): link.isEmpty ? reason : "cannot play \(link): \(reason)"
        case .serviceUnavailable(let service, let reason): "\(service): \(reason)"
        case .notPlayable(let what, let reason): what.isEmpty ? reason : "\(what) is not playable: \(reason)"
        case .service(let service, let description): "\(service): \(description)"
        }
    }
}
