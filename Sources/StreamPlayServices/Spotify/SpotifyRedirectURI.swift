/// Spotify's redirect URI rules (since 2025), checked before the browser is sent anywhere:
/// loopback redirects use the literal address `http://127.0.0.1:PORT/...` (or `[::1]`);
/// `localhost` is refused, as is plain http to any other host; https and an app's own scheme
/// are accepted; no fragment.
enum SpotifyRedirectURI {
    /// Throws ``SpotifyError/invalidRedirectURI(_:reason:)`` when Spotify would refuse `uri`.
    static func validate(_ uri: String?) throws(SpotifyError) {
        guard let uri, !uri.isEmpty else {
            throw .invalidRedirectURI("(none)", reason: "Spotify needs a redirect URI; use a loopback listener's http://127.0.0.1:PORT/callback")
        }
        guard let schemeEnd = uri.firstRange(of: "://") else {
            throw .invalidRedirectURI(uri, reason: "not an absolute URI")
        }
        guard !uri.contains("#") else { throw .invalidRedirectURI(uri, reason: "a redirect URI may not have a fragment") }
        let scheme = uri[..<schemeEnd.lowerBound].lowercased()
        let host = Self.host(of: uri[schemeEnd.upperBound...])
        if host == "localhost" || host.hasSuffix(".localhost") {
            throw .invalidRedirectURI(uri, reason: "Spotify refuses \"localhost\"; use the loopback address, http://127.0.0.1:PORT/callback")
        }
        switch scheme {
        case "http":
            guard host == "127.0.0.1" || host == "[::1]" else {
                throw .invalidRedirectURI(uri, reason: "plain http is accepted only on the loopback address 127.0.0.1; use https otherwise")
            }
        case "https":
            guard !host.isEmpty else { throw .invalidRedirectURI(uri, reason: "no host") }
        default:
            break  // an app's own scheme (x-app://callback)
        }
    }

    /// The host of the part after `scheme://`, lowercased, without user info or port.
    private static func host(of rest: Substring) -> String {
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            return String(authority.prefix { $0 != "]" }) + (authority.contains("]") ? "]" : "")
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }
}
