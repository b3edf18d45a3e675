/// The origin of a URL (RFC 6454): scheme, host and port, the unit a credential may be sent
/// to. Scheme and host are compared without case, and a scheme's default port (https 443,
/// http 80) is the same as no port, so `https://api.example:443/x` and `https://API.example/y`
/// share an origin.
struct URLOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The scheme, lowercased.
    let scheme: String
    /// The host, lowercased (an IPv6 literal keeps its brackets).
    let host: String
    /// The port, or nil for the scheme's default port.
    let port: Int?

    /// The origin of `url`, or nil when it is not an absolute `scheme://host` URL, carries
    /// user info (`user@host`: refused rather than guessed at), or has a malformed port.
    init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://"), Self.isScheme(url[..<schemeEnd.lowerBound]) else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = authority
        var portText: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        var port: Int?
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText),
                  number <= 65535 else { return nil }
            port = number
        }
        if port == Self.defaultPort(of: scheme) { port = nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    /// `scheme://host[:port]`, the port only when it is not the default.
    var description: String {
        "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }

    /// Whether `location` starts with a scheme (`name://`), rather than being a path, a
    /// protocol-relative `//host/...` or a relative reference.
    static func hasScheme(_ location: String) -> Bool {
        guard let schemeEnd = location.firstRange(of: "://") else { return false }
        return isScheme(location[..<schemeEnd.lowerBound])
    }

    /// `location` (a Location header: absolute, protocol-relative `//host/path`, absolute
    /// path or relative) made absolute against `base`.
    static func absolute(_ location: String, base: String) -> String {
        if hasScheme(location) { return location }
        guard let origin = URLOrigin(base) else { return location }
        if location.hasPrefix("//") { return origin.scheme + ":" + location }
        return location.hasPrefix("/") ? origin.description + location : origin.description + "/" + location
    }

    private static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-`, `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
