/// Resolves the locations a playlist names (M3U/PLS entries, HLS segment, key and variant URIs)
/// against the playlist's own location.
///
/// The entries come from the network, so only what the engine may follow comes out: http(s)
/// and file URLs, and paths.
enum RelativeLocation {
    /// `entry` resolved against `base` (a URL or a path): absolute http(s)/file URLs as they
    /// are; other schemes (javascript:, data:, smb://) nil; control characters nil; "/x"
    /// against a URL → the server root; "//host/x" against an http(s) URL → that host with the
    /// base's scheme; relative → the base's directory (query of the base dropped).
    static func resolve(_ entry: String, against base: String) -> String? {
        // Control characters have no place in a URL or path (a NUL would cut it short in C).
        guard !entry.isEmpty, !entry.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        let lowered = entry.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("file://") {
            return entry
        }
        // Any other scheme (javascript:, data:, smb://) is not ours to follow.
        let scheme = entry.prefix { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
        guard !(entry.dropFirst(scheme.count).hasPrefix(":") && !scheme.isEmpty) else { return nil }
        guard let schemeEnd = base.firstRange(of: "://") else {
            // A local playlist: paths.
            if entry.hasPrefix("/") { return entry }
            let directory = base.split(separator: "?", maxSplits: 1).first.map(String.init) ?? base
            guard let slash = directory.lastIndex(of: "/") else { return entry }
            return String(directory[...slash]) + entry
        }
        // What follows the authority: the path, or the query or fragment of "http://host?x".
        let authorityEnd = base[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? base.endIndex
        let baseScheme = base[..<schemeEnd.lowerBound].lowercased()
        if entry.hasPrefix("//"), baseScheme == "http" || baseScheme == "https" {
            // A network-path reference: another host, same scheme (CDNs write segment URIs so).
            return baseScheme + ":" + entry
        }
        if entry.hasPrefix("/") {
            // The server's root.
            return String(base[..<authorityEnd]) + entry
        }
        // The base's directory: up to the last "/" of its path, query and fragment left out.
        let path = base[authorityEnd...].prefix { $0 != "?" && $0 != "#" }
        guard let slash = path.lastIndex(of: "/") else {
            return String(base[..<authorityEnd]) + "/" + entry
        }
        return String(base[..<authorityEnd]) + String(path[..<path.index(after: slash)]) + entry
    }
}
