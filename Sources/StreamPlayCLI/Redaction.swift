import StreamPlay
import StreamPlayServices

/// Input names as shown to people: URLs without query strings or credentials, and private
/// SoundCloud links without their secret token.
enum Redaction {
    /// Query parameters whose values are shown: a signed URL's expiry and the key pair and
    /// client names, which prove nothing alone. Every other value is redacted (an allow-list:
    /// a service's next signature or token name cannot slip through).
    static let shownQueryParameters: Set<String> = ["Expires", "expires", "cid", "Key-Pair-Id"]

    /// `input` (a URL or a path) safe to show: no user info, query or fragment, no private
    /// link's secret token.
    static func describe(_ input: String) -> String {
        let shown = (try? MediaLocation(parsing: input))?.description ?? input
        return ServiceLink.hidingSecretTokens(in: shown.contains("://") ? RedactedURL.describe(shown) : shown)
    }

    /// `url` with every query value replaced by "[redacted]" except those of
    /// ``shownQueryParameters`` (so that an expiry stays readable), user info and the fragment
    /// removed, and a private SoundCloud link's secret token hidden.
    static func secrets(in url: String) -> String {
        let base = ServiceLink.hidingSecretTokens(in: RedactedURL.describe(url))
        guard let mark = url.firstIndex(of: "?") else { return base }
        let fragmentStart = url[mark...].firstIndex(of: "#") ?? url.endIndex
        let fields = url[url.index(after: mark)..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = fields.map { field -> String in
            // A bare field (no `=`) may itself be a token.
            guard let equals = field.firstIndex(of: "=") else {
                return field.isEmpty || shownQueryParameters.contains(String(field)) ? String(field) : "[redacted]"
            }
            let name = String(field[..<equals])
            return shownQueryParameters.contains(name) ? String(field) : "\(name)=[redacted]"
        }
        return base + "?" + redacted.joined(separator: "&")
    }
}
