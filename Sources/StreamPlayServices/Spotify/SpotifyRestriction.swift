import StreamPlay

/// Web API endpoints that apps in Spotify's Development Mode can no longer use, with the rule
/// that took each away, so that a refusal names the rule instead of a bare 403 or 404.
///
/// From Spotify's "Web API changes" of 2024-11-27 (new and development-mode apps) and the
/// "February 2026 Web API Dev Mode Changes - Migration Guide" (new apps 2026-02-11, existing
/// development-mode apps 2026-03-09); both on developer.spotify.com, read 2026-11-23. Apps in
/// extended quota mode keep these endpoints: a request is always sent, and only a refusal is
/// explained.
public enum SpotifyRestriction {
    /// The most results a search may ask for (`limit`) under the February 2026 rules.
    public static let searchLimitMaximum = 10
    /// The number of results a search gets without a `limit` under those rules.
    public static let searchLimitDefault = 5

    /// The rule that removed `path` (under the API's base URL, `/recommendations`,
    /// `/playlists/ID/tracks`, ...) for development-mode apps, or nil for an endpoint that is
    /// still there.
    public static func restriction(forPath path: String, method: HTTPRequest.Method = .get) -> String? {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let parts = bare.split(separator: "/").map(String.init)
        let november2024 = "removed for new and development-mode apps on 2024-11-27"
        let february2026 = "removed for development-mode apps by the February 2026 rules"
        switch parts.first ?? "" {
        case "recommendations": return "Recommendations: \(november2024)"
        case "audio-features": return "Audio Features: \(november2024)"
        case "audio-analysis": return "Audio Analysis: \(november2024)"
        case "browse": return "browse (featured playlists, new releases, categories): \(november2024) and 2026-02"
        case "users": return "other users' profiles and playlists: \(february2026); use /me"
        case "artists" where parts.count == 3 && parts[2] == "related-artists": return "Related Artists: \(november2024)"
        case "artists" where parts.count == 3 && parts[2] == "top-tracks": return "Artist Top Tracks: \(february2026)"
        case "playlists" where parts.count == 3 && parts[2] == "tracks":
            return "playlist /tracks: \(february2026); it is /playlists/{id}/items now"
        case "me" where parts.count >= 2 && ["tracks", "albums", "episodes", "shows", "audiobooks", "following"].contains(parts[1]):
            guard method != .get || parts.last == "contains" else { return nil }
            return "type-specific library endpoints: \(february2026); use PUT/DELETE /me/library"
        case "tracks" where parts.count == 1, "albums" where parts.count == 1, "artists" where parts.count == 1:
            return "several items by ids: \(february2026); ask for each id"
        default: return nil
        }
    }
}
