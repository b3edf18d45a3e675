import StreamPlay

extension SpotifyClient {
    /// The signed-in user (`GET /v1/me`); email needs the `user-read-email` scope, product and
    /// country `user-read-private`. Under the February 2026 Development Mode rules `/me` has no
    /// `country`, `email`, `explicit_content`, `followers` or `product` at all: those are then
    /// nil, which is normal, not an error.
    public func me() async throws(SpotifyError) -> SpotifyUser {
        let (json, status) = try await requestJSON(.get, "/me")
        return try SpotifyUser(json: json, status: status)
    }

    /// A track's metadata (`GET /v1/tracks/{id}`).
    /// - Parameter id: a 22-character id, `spotify:track:ID` or an open.spotify.com track link.
    /// - Throws: ``SpotifyError/invalidTrackID(_:)`` before any request for anything else;
    ///   ``SpotifyError/api(status:message:reason:)`` with 404 for an unknown track.
    public func track(_ id: String) async throws(SpotifyError) -> SpotifyTrack {
        let trackID = try SpotifyTrackID.parse(id)
        let (json, status) = try await requestJSON(.get, "/tracks/\(trackID.rawValue)")
        return try SpotifyTrack(json: json, status: status)
    }

    /// The track's 30-second MP3 preview, for StreamPlay's Player: a public CDN URL (send it no
    /// Authorization header).
    ///
    /// This is the only part of a Spotify track another player can play: full tracks are
    /// DRM-protected and stream only through Spotify's own player (control it with
    /// ``play(uris:offset:positionMilliseconds:deviceID:)``). Spotify gives no preview for most
    /// tracks today, and none to apps registered since November 2024.
    /// - Throws: ``SpotifyError/noPreview(trackID:name:)`` when `preview_url` is null.
    public func previewStream(forTrack id: String) async throws(SpotifyError) -> SpotifyPreview {
        let track = try await track(id)
        guard let url = track.previewURL, !url.isEmpty else { throw .noPreview(trackID: track.id, name: track.name) }
        return SpotifyPreview(url: url, title: track.name, trackID: track.id, artistNames: track.artistNames,
                              trackDuration: track.duration)
    }

    /// Searches tracks (`GET /v1/search?type=track`).
    /// - Parameters:
    ///   - query: the search text (Spotify's field filters such as `artist:` work).
    ///   - limit: how many results, 1 to ``SpotifyRestriction/searchLimitMaximum`` (10, the
    ///     February 2026 maximum; Spotify's default is 5).
    /// - Throws: ``SpotifyError/searchLimitTooLarge(requested:maximum:)`` for a larger limit,
    ///   before any request (rather than silently fewer results than asked);
    ///   ``SpotifyError/invalidResponse(reason:status:)`` for an answer without `tracks.items`.
    public func searchTracks(_ query: String, limit: Int = SpotifyRestriction.searchLimitDefault) async throws(SpotifyError) -> [SpotifyTrack] {
        guard limit <= SpotifyRestriction.searchLimitMaximum else {
            throw .searchLimitTooLarge(requested: limit, maximum: SpotifyRestriction.searchLimitMaximum)
        }
        guard limit >= 1 else { throw .invalidResponse(reason: "a search limit must be at least 1 (\(limit) asked)", status: 0) }
        let (json, status) = try await requestJSON(.get, "/search", query: [("q", query), ("type", "track"), ("limit", String(limit))])
        guard let items = json["tracks"]?["items"]?.array else {
            throw .invalidResponse(reason: "no tracks.items in the search answer", status: status)
        }
        var tracks: [SpotifyTrack] = []
        // Spotify's paging objects may hold null entries (items it cannot show): skipped.
        for item in items where item != .null {
            tracks.append(try SpotifyTrack(json: item, status: status))
        }
        return tracks
    }

    // MARK: Requests

    /// A Web API call answered with a JSON body, and the status.
    func requestJSON(_ method: HTTPRequest.Method, _ path: String, query: [(String, String)] = []) async throws(SpotifyError) -> (JSON, Int) {
        let response = try await request(method, path, query: query)
        do {
            return (try JSON(parsing: response.body), response.status)
        } catch {
            throw .invalidResponse(reason: "the body is not JSON", status: response.status)
        }
    }

    /// A Web API call with the session's Bearer token, retried on 429 and 5xx by the policy;
    /// a 401 renews the session once and replays (``OAuth2Client/send(_:scheme:uploadProgress:isExpired:)``).
    /// - Returns: the 2xx response (204 has no body).
    /// - Throws: the error object's ``SpotifyError`` for any other status.
    func request(_ method: HTTPRequest.Method, _ path: String, query: [(String, String)] = [],
                 body: JSON? = nil) async throws(SpotifyError) -> HTTPResponse {
        var url = configuration.apiURL(path)
        if !query.isEmpty { url += (url.contains("?") ? "&" : "?") + FormEncoding.encode(query) }
        let request = HTTPRequest(method: method, url: url, headers: ["Accept": "application/json"],
                                  body: body.map { .json($0.encoded()) } ?? .none)
        let response = try await retryPolicy.retrying(request, service: "Spotify", logger: logger,
                                                      cancelled: SpotifyError.cancelled) { () async throws(SpotifyError) -> HTTPResponse in
            let response: HTTPResponse
            do throws(OAuth2Error) {
                response = try await oauth.send(request, scheme: "Bearer")
            } catch {
                throw SpotifyError.from(error)
            }
            // A used-up quota is no "try again in a second": not retried.
            if response.status == 429, case .quotaExceeded = SpotifyError.from(response) { throw SpotifyError.from(response) }
            return response
        }
        if response.isSuccess { return response }
        let error = SpotifyError.from(response, path: path, method: method)
        logger.debug("Spotify API error", metadata: ["url": "\(RedactedURL.describe(url))", "error": "\(error)"])
        throw error
    }
}
