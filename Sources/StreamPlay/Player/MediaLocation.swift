import FoundationEssentials

/// What a ``Player`` can play: an HTTP(S) URL or a local file.
public enum MediaLocation: Sendable, Equatable, CustomStringConvertible {
    /// An `http://` or `https://` URL, fetched with libcurl.
    case remote(String)
    /// A local file path.
    case file(String)

    /// Interprets `text` as a URL (http, https, file) or, without a scheme, as a path.
    /// - Throws: ``PlayerError/unsupportedScheme(_:)`` or ``PlayerError/invalidLocation(_:)``.
    public init(parsing text: String) throws(PlayerError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .invalidLocation(text) }
        guard let schemeEnd = trimmed.firstRange(of: "://") else {
            self = .file(trimmed)
            return
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        switch scheme {
        case "http", "https":
            guard let components = URLComponents(string: trimmed), let host = components.host, !host.isEmpty else {
                throw .invalidLocation(RedactedURL.describe(trimmed))
            }
            self = .remote(trimmed)
        case "file":
            guard let url = URL(string: trimmed), url.isFileURL, !url.path.isEmpty else {
                throw .invalidLocation(trimmed)
            }
            self = .file(url.path)
        default:
            throw .unsupportedScheme(scheme)
        }
    }

    /// Text safe to show: the path, or the URL without query or credentials.
    public var description: String {
        switch self {
        case .remote(let url): RedactedURL.describe(url)
        case .file(let path): path
        }
    }
}
