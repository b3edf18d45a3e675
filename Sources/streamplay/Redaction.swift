import StreamPlay

/// Input names as shown to people: URLs without query strings or credentials.
enum Redaction {
    static func describe(_ input: String) -> String {
        (try? MediaLocation(parsing: input))?.description ?? input
    }

    /// `url` with the values of query parameters that work as credentials (signatures, tokens,
    /// keys, codes) replaced by "[redacted]", and user info removed; the rest is kept, so
    /// that an expiry stays readable.
    static func secrets(in url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return RedactedURL.describe(url) }
        let fragmentStart = url[mark...].firstIndex(of: "#") ?? url.endIndex
        let fields = url[url.index(after: mark)..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = fields.map { field -> String in
            guard let equals = field.firstIndex(of: "=") else { return String(field) }
            let name = field[..<equals].lowercased()
            let secret = ["sig", "token", "key", "policy", "secret", "code", "auth", "password", "credential"]
                .contains { name.contains($0) }
            return secret ? "\(field[..<equals])=[redacted]" : String(field)
        }
        return RedactedURL.describe(url) + "?" + redacted.joined(separator: "&")
    }
}
