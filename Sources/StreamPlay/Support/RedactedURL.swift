/// URL text safe for logs and errors: scheme, host, port and path only.
///
/// Signed CDN URLs and API URLs carry tokens in the query string or the user info; those must
/// never reach a log line or an error message.
public enum RedactedURL {
    /// `url` without its user info, query and fragment.
    public static func describe(_ url: String) -> String {
        var text = Substring(url)
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<query]
        }
        if let schemeEnd = text.firstRange(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                return String(text[..<authorityStart]) + String(text[text.index(after: at)...])
            }
        }
        return String(text)
    }
}
