import StreamPlay

extension SoundCloudClient {
    /// A track's stream renditions (`GET /tracks/URN/streams`).
    public func streams(forTrack id: String) async throws(SoundCloudError) -> SoundCloudStreams {
        let urn = try trackURN(id)
        return SoundCloudStreams(json: try await get("/tracks/\(urn)/streams"))
    }

    /// The stream to play for a track: the best MP3 rendition (progressive first, then HLS),
    /// its API URL's redirect resolved to the signed CDN URL. The OAuth header goes to the API
    /// only, never to the CDN.
    ///
    /// A rendition the API refuses (404) is skipped for the next one; a rendition URL already on
    /// the CDN (off the API's origin) is played as it is, without the token.
    /// - Parameter allowPreview: take a preview clip when the whole track cannot be streamed.
    /// - Throws: ``SoundCloudError/notPlayableYet(title:renditions:)`` when the track streams
    ///   only as AAC; ``SoundCloudError/previewOnly(title:)`` when only a preview exists and
    ///   `allowPreview` is false; ``SoundCloudError/noStream(title:reason:)``.
    public func stream(forTrack id: String, allowPreview: Bool = false) async throws(SoundCloudError) -> SoundCloudStream {
        let urn = try trackURN(id)
        let track = try await track(urn.description)
        guard track.streamable else { throw .noStream(title: track.title, reason: "the track is not streamable") }
        let streams = try await streams(forTrack: urn.description)
        let full = track.isPreviewOnly ? [] : streams.fullTrackMP3
        let candidates = full + (allowPreview ? streams.previewMP3 : [])
        if full.isEmpty && candidates.isEmpty {
            let others = streams.names.filter { !$0.hasPrefix("preview") }
            if !track.isPreviewOnly && !others.isEmpty { throw .notPlayableYet(title: track.title, renditions: others) }
            if !streams.previewMP3.isEmpty { throw .previewOnly(title: track.title) }
            throw .noStream(title: track.title, reason: streams.names.isEmpty
                ? "the track has no stream renditions" : "no MP3 rendition (\(streams.names.joined(separator: ", ")))")
        }
        for rendition in candidates {
            guard let apiURL = streams.renditions[rendition] else { continue }
            let url: String
            do {
                url = try await signedURL(apiURL)
            } catch {
                guard case .notFound = error else { throw error }
                logger.notice("stream rendition unavailable; trying the next", metadata: ["rendition": "\(rendition)"])
                continue
            }
            let isPreview = rendition.hasPrefix("preview")
            logger.debug("stream resolved", metadata: ["track": "\(urn)", "rendition": "\(rendition)",
                                                       "url": "\(RedactedURL.describe(url))"])
            return SoundCloudStream(url: url, format: SoundCloudStreams.format(of: rendition), rendition: rendition,
                                    expiresAt: SoundCloudStream.expiry(of: url), isPreview: isPreview,
                                    trackURN: urn.description, title: track.title,
                                    duration: isPreview ? nil : track.duration)
        }
        throw .noStream(title: track.title, reason: "the API refused every MP3 rendition (\(candidates.joined(separator: ", ")))")
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
