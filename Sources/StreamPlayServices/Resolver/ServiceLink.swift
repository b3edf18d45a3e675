import FoundationEssentials
import StreamPlay

/// What a link given to ``StreamResolver`` points at, told apart by its form alone (no request).
public enum ServiceLink: Sendable, Equatable, CustomStringConvertible {
    /// A soundcloud.com page (track, user, set), or an on.soundcloud.com short link: needs
    /// SoundCloud's /resolve.
    case soundCloudPage(String)
    /// A SoundCloud track by URN (`soundcloud:tracks:N`) or id (an api.soundcloud.com/tracks/N
    /// URL); the value is the URN.
    case soundCloudTrack(urn: String)
    /// A Spotify track: `spotify:track:ID` or https://open.spotify.com/track/ID; the value is
    /// the 22-character id.
    case spotifyTrack(id: String)
    /// Anything else with http(s) or file, or a path: played as it is.
    case direct(String)

    /// Classifies `text`.
    /// - Throws: ``ResolverError/unsupportedLink(_:reason:)`` for service links that name
    ///   something other than a track (a Spotify album), or an unknown URI scheme.
    public init(parsing text: String) throws(ResolverError) {
        let link = text.trimmedWhitespace
        guard !link.isEmpty else { throw .unsupportedLink("", reason: "the link is empty") }
        let lowered = link.lowercased()
        if lowered.hasPrefix("soundcloud:") {
            let parts = link.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "tracks", !parts[2].isEmpty, parts[2].allSatisfy(Self.isDigit) else {
                throw .unsupportedLink(Self.shown(link), reason: "only soundcloud:tracks:N URNs name something playable")
            }
            self = .soundCloudTrack(urn: "soundcloud:tracks:\(parts[2])")
            return
        }
        if lowered.hasPrefix("spotify:") {
            let parts = link.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "track" else {
                throw .unsupportedLink(Self.shown(link), reason: "only spotify:track:ID URIs are playable (albums, playlists and episodes are not)")
            }
            guard Self.isSpotifyID(parts[2]) else { throw .unsupportedLink(Self.shown(link), reason: "a Spotify id has 22 letters and digits") }
            self = .spotifyTrack(id: String(parts[2]))
            return
        }
        guard let schemeEnd = link.firstRange(of: "://") else {
            if link.contains(":"), !link.hasPrefix("/"), !link.hasPrefix("."),
               let scheme = link.split(separator: ":").first, scheme.allSatisfy({ $0.isLetter }), scheme.count > 1 {
                throw .unsupportedLink(Self.shown(link), reason: "unknown scheme \"\(scheme)\"")
            }
            self = .direct(link)
            return
        }
        let scheme = lowered[..<schemeEnd.lowerBound]
        let rest = link[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var host = authority.split(separator: "@").last.map { $0.lowercased() } ?? ""
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = String(host[..<colon]) }
        let path = rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/").map(String.init)
        guard scheme == "http" || scheme == "https" else {
            self = .direct(link)
            return
        }
        switch host {
        case "soundcloud.com", "www.soundcloud.com", "m.soundcloud.com", "on.soundcloud.com":
            guard !segments.isEmpty else { throw .unsupportedLink(Self.shown(link), reason: "a SoundCloud link names a track or a user") }
            self = .soundCloudPage(link)
        case "api.soundcloud.com":
            guard segments.count >= 2, segments[0] == "tracks" else {
                throw .unsupportedLink(Self.shown(link), reason: "only api.soundcloud.com/tracks/ID is playable")
            }
            let id = FormEncoding.percentDecode(segments[1])
            if id.allSatisfy(Self.isDigit) { self = .soundCloudTrack(urn: "soundcloud:tracks:\(id)") }
            else if id.hasPrefix("soundcloud:tracks:") { self = .soundCloudTrack(urn: id) }
            else { throw .unsupportedLink(Self.shown(link), reason: "\(segments[1]) is not a track id") }
        case "open.spotify.com", "play.spotify.com":
            // /track/ID, also with a locale segment first (/intl-de/track/ID).
            let named = segments.first?.hasPrefix("intl-") == true ? Array(segments.dropFirst()) : segments
            guard named.count >= 2, named[0] == "track" else {
                throw .unsupportedLink(Self.shown(link), reason: "only Spotify track links are playable (albums, playlists and episodes are not)")
            }
            guard Self.isSpotifyID(Substring(named[1])) else { throw .unsupportedLink(Self.shown(link), reason: "a Spotify id has 22 letters and digits") }
            self = .spotifyTrack(id: named[1])
        default:
            self = .direct(link)
        }
    }

    /// The service the link belongs to, or nil for a direct link.
    public var service: StreamingService? {
        switch self {
        case .soundCloudPage, .soundCloudTrack: .soundcloud
        case .spotifyTrack: .spotify
        case .direct: nil
        }
    }

    /// The link, safe to show (no query: signed URLs carry their signature there; a private
    /// SoundCloud link's secret token hidden).
    public var description: String {
        switch self {
        case .soundCloudPage(let link): Self.hidingSecretTokens(in: RedactedURL.describe(link))
        case .soundCloudTrack(let urn): urn
        case .spotifyTrack(let id): "spotify:track:\(id)"
        case .direct(let link): Self.shown(link)
        }
    }

    /// `url` with the secret token of a private SoundCloud link (a path segment `s-XXXXX`, as in
    /// `soundcloud.com/user/track/s-AbC123`) replaced by `s-[redacted]`, on soundcloud.com and
    /// its subdomains; anything else is returned as it is. The query is left alone (a
    /// `secret_token` there must be redacted by the caller, as ``description`` drops the query).
    public static func hidingSecretTokens(in url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var host = authority.split(separator: "@").last.map { $0.lowercased() } ?? ""
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        guard host == "soundcloud.com" || host.hasSuffix(".soundcloud.com") else { return url }
        let pathStart = authority.endIndex
        let pathEnd = url[pathStart...].firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        let segments = url[pathStart..<pathEnd].split(separator: "/", omittingEmptySubsequences: false)
        let hidden = segments.map { isSecretToken($0) ? "s-[redacted]" : String($0) }
        return String(url[..<pathStart]) + hidden.joined(separator: "/") + String(url[pathEnd...])
    }

    /// `link` as an error may show it: a URL without user info, query and fragment, and with no
    /// secret token; anything else as it is.
    static func shown(_ link: String) -> String {
        link.contains("://") ? hidingSecretTokens(in: RedactedURL.describe(link)) : link
    }

    /// A private link's secret token: `s-` and letters and digits.
    static func isSecretToken(_ segment: Substring) -> Bool {
        segment.count > 2 && segment.hasPrefix("s-") && segment.dropFirst(2).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    static func isSpotifyID(_ text: Substring) -> Bool {
        text.count == 22 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
