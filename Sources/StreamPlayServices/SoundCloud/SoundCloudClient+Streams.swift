import StreamPlay

extension SoundCloudClient {
    /// A track's stream renditions (`GET /tracks/URN/streams`).
    public func streams(forTrack id: String) async throws(SoundCloudError) -> SoundCloudStreams {
        let urn = try trackURN(id)
        return SoundCloudStreams(json: try await get("/tracks/\(urn)/streams"))
    }

    /// The stream to play for a track, its API URL's redirect resolved to the signed CDN URL.
    /// The OAuth header goes to the API only, never to the CDN.
    ///
    /// - The track's `access` decides first: `blocked` is ``SoundCloudError/blocked(title:)``;
    ///   `preview` means every rendition is a snippet (a preview, or
    ///   ``SoundCloudError/previewOnly(title:)`` without `allowPreview`); `playable` (or none
    ///   said) is the whole track.
    /// - Renditions are tried best first: `hls_aac_160`, `hls_mp3_128`, `http_mp3_128`, each
    ///   only when the engine can play it (`PlayableFormats`: AAC in HLS is not playable yet,
    ///   so it is skipped until it is), then `preview_mp3_128` when previews are allowed,
    ///   reported as a preview. A rendition the API refuses (404) is skipped for the next.
    /// - A snippet is never passed off as the whole track: a rendition whose CDN URL has a
    ///   `/preview/` path, or whose HLS playlist lasts less than half the track's `duration`,
    ///   is a preview; it is played flagged as one when previews are allowed and nothing
    ///   better exists, else the answer is ``SoundCloudError/previewOnly(title:)``.
    /// - Encrypted renditions (`ctr-encrypted-hls`, `cbc-encrypted-hls`, or a playlist whose
    ///   key method is `SAMPLE-AES`) are skipped; when nothing clear is left, the answer is
    ///   ``SoundCloudError/drmProtected(title:renditions:)``.
    ///
    /// A rendition URL already on the CDN (off the API's origin) is played as it is, without
    /// the token.
    /// - Parameters:
    ///   - id: the track's URN (or its numeric id).
    ///   - allowPreview: take a preview clip, flagged, when the whole track cannot be streamed.
    /// - Throws: ``SoundCloudError/blocked(title:)``, ``SoundCloudError/previewOnly(title:)``,
    ///   ``SoundCloudError/drmProtected(title:renditions:)``,
    ///   ``SoundCloudError/notPlayableYet(title:renditions:)`` when only renditions the engine
    ///   cannot decode yet (AAC) are left, ``SoundCloudError/noStream(title:reason:)``.
    public func stream(forTrack id: String, allowPreview: Bool = false) async throws(SoundCloudError) -> SoundCloudStream {
        let urn = try trackURN(id)
        let track = try await track(urn.description)
        if track.access == "blocked" { throw .blocked(title: track.title) }
        guard track.streamable else { throw .noStream(title: track.title, reason: "the track is not streamable") }
        let streams = try await streams(forTrack: urn.description)
        let previewAccess = track.isPreviewOnly
        // With `access: preview` every rendition is a snippet: the preview key first, then the rest.
        let full = previewAccess ? [] : streams.fullTrack
        let previews = previewAccess ? streams.previews + streams.fullTrack : streams.previews
        var check = StreamCheck(track: track, urn: urn.description)
        for name in full {
            guard let stream = try await candidate(name, streams: streams, check: &check) else { continue }
            return stream
        }
        if allowPreview {
            if let snippet = check.snippets.first { return snippet }
            for name in previews {
                let reason = previewAccess ? "SoundCloud allows only a preview of this track (access: preview)"
                    : "the \(name) rendition is a preview"
                guard let stream = try await candidate(name, streams: streams, check: &check, previewReason: reason) else { continue }
                return stream
            }
        }
        throw check.failure(streams: streams, previews: previews, previewAccess: previewAccess, allowPreview: allowPreview)
    }

    /// Signs rendition `name` and checks what it serves: the stream, or nil when it is to be
    /// skipped (refused by the API, encrypted, or a snippet kept aside in `check`).
    private func candidate(_ name: String, streams: SoundCloudStreams, check: inout StreamCheck,
                           previewReason: String? = nil) async throws(SoundCloudError) -> SoundCloudStream? {
        guard let apiURL = streams.renditions[name] else { return nil }
        let url: String
        do {
            url = try await signedURL(apiURL)
        } catch {
            guard case .notFound = error else { throw error }
            logger.notice("stream rendition unavailable; trying the next", metadata: ["rendition": "\(name)"])
            check.refused.append(name)
            return nil
        }
        let format = SoundCloudStreams.format(of: name)
        var reason = previewReason
        if reason == nil, SoundCloudStream.hasPreviewPath(url) {
            reason = "the CDN serves the \(name) rendition from a preview path"
        }
        if format == .hls, let summary = await playlistSummary(url) {
            if let method = summary.drmMethod {
                logger.notice("stream rendition is DRM-encrypted; skipped", metadata: ["rendition": "\(name)", "method": "\(method)"])
                check.encrypted.append("\(name) (\(method))")
                return nil
            }
            if reason == nil, summary.isSnippet(ofTrackLasting: check.track.duration) {
                reason = "the \(name) playlist lasts \(Int(summary.totalDuration.rounded())) s of the track's "
                    + "\(Int((check.track.duration ?? 0).rounded())) s"
            }
        }
        let stream = SoundCloudStream(url: url, format: format, rendition: name, expiresAt: SoundCloudStream.expiry(of: url),
                                      isPreview: reason != nil, trackURN: check.urn, title: check.track.title,
                                      duration: reason != nil ? nil : check.track.duration, previewReason: reason)
        logger.debug("stream resolved", metadata: ["track": "\(check.urn)", "rendition": "\(name)",
                                                   "preview": "\(reason ?? "no")", "url": "\(RedactedURL.describe(url))"])
        if reason != nil && previewReason == nil {
            // A full-track rendition that serves a snippet: kept aside, never passed off as the track.
            check.snippets.append(stream)
            return nil
        }
        return stream
    }

    /// The summary of the HLS playlist at a signed CDN URL (one variant deep for a master
    /// playlist), fetched without the token; nil when it cannot be read (the player will say).
    func playlistSummary(_ url: String) async -> HLSPlaylistSummary? {
        var location = url
        for _ in 0..<2 {
            guard let response = try? await oauth.http.send(HTTPRequest(url: location)), response.isSuccess,
                  let text = String(validating: response.body, as: UTF8.self),
                  let summary = HLSPlaylistSummary(text) else {
                logger.debug("stream playlist not readable; not checked", metadata: ["url": "\(RedactedURL.describe(location))"])
                return nil
            }
            guard summary.isMaster, let variant = summary.firstVariant else { return summary }
            location = URLOrigin.absolute(variant, base: location)
        }
        return nil
    }

    /// A freshly signed CDN URL for a track's rendition, for a player whose URL expired (the
    /// CDN answers 403 once it has): the renditions are listed again and the chosen one's
    /// redirect resolved anew.
    public func refreshedStreamURL(forTrack id: String, rendition: String) async throws(SoundCloudError) -> String {
        let streams = try await streams(forTrack: id)
        guard let apiURL = streams.renditions[rendition] else {
            throw .noStream(title: id, reason: "the track no longer has the \(rendition) rendition")
        }
        let url = try await signedURL(apiURL)
        logger.debug("stream URL signed again", metadata: ["rendition": "\(rendition)", "url": "\(RedactedURL.describe(url))"])
        return url
    }

    /// The Player's URL refresher for `stream` (see `Player.play(_:startingAt:length:urlRefresher:)`):
    /// given the expired URL, it returns a newly signed one.
    public func urlRefresher(for stream: SoundCloudStream) -> URLRefresher {
        { [self] _ in try await refreshedStreamURL(forTrack: stream.trackURN, rendition: stream.rendition) }
    }

    /// The signed CDN URL an API stream URL redirects to; the redirect is read, not followed, so
    /// the OAuth header never reaches the CDN. A rendition URL already off the API's origin (a
    /// CDN URL that carries its own signature) is that URL: it is not fetched, and never with
    /// the token.
    func signedURL(_ apiURL: String) async throws(SoundCloudError) -> String {
        if URLOrigin.hasScheme(apiURL), !isOnAPIHost(apiURL) {
            logger.debug("stream rendition already off the API host; used as it is",
                         metadata: ["url": "\(RedactedURL.describe(apiURL))"])
            return apiURL
        }
        let response = try await perform(.get, apiURL, accept: "*/*")
        guard response.status >= 300, response.status < 400,
              let location = response.headers["Location"] ?? response.json["location"]?.string else {
            throw .invalidResponse(reason: "the stream endpoint \(RedactedURL.describe(apiURL)) did not redirect", status: response.status)
        }
        // Relative to the URL that answered (a same-origin redirect may have been followed).
        return Self.absolute(location, base: URLOrigin.hasScheme(response.url) ? response.url : configuration.apiURL(apiURL))
    }
}
