import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What a play can read: a file or URL of audio, or an HLS media playlist.
enum PlaybackSource {
    case media(MediaLocation)
    case hls(url: String, playlist: HLSMediaPlaylist)
}

/// What a location stands for: itself; an HLS stream (.m3u8); or the entries of a playlist
/// (.m3u, .pls), of which the first that answers with audio plays. Radio sites list several
/// servers; later ones are fallbacks.
///
/// Runs on the decoder thread before any input exists. A remote playlist is fetched through
/// ``ResourceFetcher``; every wait (for the network, or for a URL refresher) sleeps on
/// `wakeUp` and ends when `isStopped` turns true.
struct PlaybackSourceResolver {
    let location: MediaLocation
    let configuration: PlayerConfiguration
    let urlRefresher: URLRefresher?
    /// What the decoder thread sleeps on while it waits; a stop signals it.
    let wakeUp: ThreadSignal
    /// Whether the play was stopped meanwhile.
    let isStopped: () -> Bool

    /// The sources to try, in order.
    func resolve() throws(PlayerError) -> [PlaybackSource] {
        let text: String
        let base: String
        switch location {
        case .remote(var url):
            let isHLSName = Self.pathOf(url).lowercased().hasSuffix(".m3u8")
            guard let kind = PlaylistParser.kind(of: url) ?? (isHLSName ? .m3u : nil) else { return [.media(location)] }
            text = String(decoding: try fetchTextRenewing(&url), as: UTF8.self)
            if HLSPlaylistParser.isHLS(text) { return [try resolveHLS(url: url, text: text)] }
            base = url
            return try entries(text, kind: kind, base: base).map { .media($0) }
        case .file(let path):
            guard let kind = PlaylistParser.kind(of: path) ?? (path.lowercased().hasSuffix(".m3u8") ? .m3u : nil) else {
                return [.media(location)]
            }
            guard let file = fopen(path, "rb") else { throw .fileNotFound(path: path) }
            defer { fclose(file) }
            var data = [UInt8](repeating: 0, count: ResourceFetcher.limit + 1)
            data.removeLast(data.count - fread(&data, 1, data.count, file))
            guard data.count <= ResourceFetcher.limit else {
                throw .notAudio(url: path, reason: "playlist larger than \(ResourceFetcher.limit) bytes")
            }
            text = String(decoding: data, as: UTF8.self)
            if HLSPlaylistParser.isHLS(text) {
                throw .invalidPlaylist(url: path, reason: "HLS is played from http(s) URLs, not from files")
            }
            base = path
            return try entries(text, kind: kind, base: base).map { .media($0) }
        }
    }

    static func pathOf(_ url: String) -> Substring {
        url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(url)
    }

    /// The playlist at `url`; a signed URL refused as expired (403, 410) is replaced by the
    /// refresher's answer once.
    private func fetchTextRenewing(_ url: inout String) throws(PlayerError) -> Data {
        do {
            return try fetchText(url)
        } catch {
            guard let status = error.status, status == 403 || status == 410, let urlRefresher,
                  let fresh = BlockingURLRefresher(refresh: urlRefresher, clock: configuration.clock).freshURL(
                      replacing: url, timeout: configuration.urlRefreshTimeout, wakeUp: WakeUpSignal(wakeUp),
                      shouldStop: isStopped)
            else { throw error }
            url = fresh
            return try fetchText(url)
        }
    }

    private func fetchText(_ url: String) throws(PlayerError) -> Data {
        try ResourceFetcher.fetch(url, configuration: configuration, wakeUp: WakeUpSignal(wakeUp), shouldStop: isStopped)
    }

    /// The media playlist to play for an HLS URL: the playlist itself, or the variant of a master
    /// playlist chosen by its codecs and bandwidth.
    private func resolveHLS(url: String, text: String) throws(PlayerError) -> PlaybackSource {
        var mediaURL = url
        var parsed = try HLSPlaylistParser.parse(text, url: url)
        if case .master(let variants) = parsed {
            guard let variant = HLSVariantSelection.choose(from: variants, maximumBandwidth: configuration.hlsMaximumBandwidth) else {
                throw .unsupportedFormat(url: location.description, format: "the master playlist has no audio variant StreamPlay decodes")
            }
            mediaURL = variant.url
            parsed = try HLSPlaylistParser.parse(String(decoding: try fetchText(mediaURL), as: UTF8.self), url: mediaURL)
        }
        guard case .media(let playlist) = parsed else {
            throw .invalidPlaylist(url: location.description, reason: "the chosen variant is a master playlist too")
        }
        configuration.logger.debug("HLS", metadata: [
            "playlist": "\(RedactedURL.describe(mediaURL))", "segments": "\(playlist.segments.count)",
            "live": "\(!playlist.isComplete)",
        ])
        return .hls(url: mediaURL, playlist: playlist)
    }

    private func entries(_ text: String, kind: PlaylistParser.Kind, base: String) throws(PlayerError) -> [MediaLocation] {
        let locations = PlaylistParser.entries(of: text, kind: kind, base: base).compactMap { try? MediaLocation(parsing: $0) }
        guard !locations.isEmpty else {
            throw .notAudio(url: location.description, reason: "the playlist has no playable entry")
        }
        return locations
    }
}
