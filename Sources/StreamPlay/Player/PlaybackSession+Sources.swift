import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
// What a location stands for: the audio itself, an HLS stream, or the entries of a playlist,
// and the input that reads it.

extension PlaybackSession {
    /// What a session can read: a file or URL of audio, or an HLS media playlist.
    enum Source {
        case media(MediaLocation)
        case hls(url: String, playlist: HLSMediaPlaylist)
    }

    /// Starts the input for `source`: libcurl for URLs, a file reader for paths, the segment
    /// reader for HLS.
    func makeInput(for source: Source) -> any InputSource {
        let wake = self.wake
        let control = InputControl { wake.signal() }
        let onReconnect: @Sendable () -> Void = { [weak self] in self?.reconnects.add(1, ordering: .relaxed) }
        switch source {
        case .media(.remote(let url)):
            let report = self.notifyPlayer
            return CurlInputSource(url: url, ring: ring, control: control, configuration: configuration,
                                   urlRefresher: urlRefresher, onReconnect: onReconnect,
                                   onMetadata: { metadata in report(.metadata(metadata)) })
        case .media(.file(let path)):
            return FileInputSource(path: path, ring: ring, control: control)
        case .hls(let url, let playlist):
            return HLSInputSource(playlistURL: url, playlist: playlist, ring: ring, control: control,
                                  configuration: configuration, urlRefresher: urlRefresher, onReconnect: onReconnect)
        }
    }

    /// What `location` stands for: itself; an HLS stream (.m3u8); or the entries of a playlist
    /// (.m3u, .pls), of which the first that answers with audio plays. Radio sites list several
    /// servers; later ones are fallbacks.
    func resolveSources() throws(PlayerError) -> [Source] {
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
    func fetchTextRenewing(_ url: inout String) throws(PlayerError) -> Data {
        do {
            return try fetchText(url)
        } catch {
            guard let status = error.status, status == 403 || status == 410, let urlRefresher,
                  let fresh = BlockingURLRefresher(refresh: urlRefresher, clock: configuration.clock).freshURL(
                      replacing: url, timeout: configuration.urlRefreshTimeout, wakeUp: WakeUpSignal(wake),
                      shouldStop: { commands.withEngineLock { $0.stopRequested } })
            else { throw error }
            url = fresh
            return try fetchText(url)
        }
    }

    func fetchText(_ url: String) throws(PlayerError) -> Data {
        try ResourceFetcher.fetch(url, configuration: configuration, wakeUp: WakeUpSignal(wake)) { [self] in
            commands.withEngineLock { $0.stopRequested }
        }
    }

    /// The media playlist to play for an HLS URL: the playlist itself, or the variant of a master
    /// playlist chosen by its codecs and bandwidth.
    func resolveHLS(url: String, text: String) throws(PlayerError) -> Source {
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
        logger.debug("HLS", metadata: ["playlist": "\(RedactedURL.describe(mediaURL))",
                                       "segments": "\(playlist.segments.count)", "live": "\(!playlist.isComplete)"])
        return .hls(url: mediaURL, playlist: playlist)
    }

    func entries(_ text: String, kind: PlaylistParser.Kind, base: String) throws(PlayerError) -> [MediaLocation] {
        let locations = PlaylistParser.entries(of: text, kind: kind, base: base).compactMap { try? MediaLocation(parsing: $0) }
        guard !locations.isEmpty else {
            throw .notAudio(url: location.description, reason: "the playlist has no playable entry")
        }
        return locations
    }
}
