import StreamPlay
import StreamPlayServices

extension FakeSpotify {
    func installRoutes() {
        route(.post, host: Self.accountsHost, path: "/api/token") { fake, request in fake.tokenEndpoint(request) }
        route(host: Self.apiHost, pathPrefix: "/") { fake, request in
            switch fake.checkToken(request) {
            case .refused(let response): return response
            case .granted(let grant): return fake.api(request, grant: grant)
            }
        }
        transport.route(.get, host: Self.cdnHost, pathPrefix: "/mp3-preview/") { request in
            // An ID3v2 header with no frames: the start of an MP3 file, not audio to decode.
            HTTPResponse(status: 200, headers: ["Content-Type": "audio/mpeg"],
                         body: [0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0], url: request.url)
        }
    }

    // MARK: Tokens

    private func tokenEndpoint(_ request: RecordedRequest) -> HTTPResponse {
        let fields = FakeOAuth.fields(of: request)
        guard let grantType = fields["grant_type"] else {
            return FakeOAuth.error("unsupported_grant_type", "grant_type parameter is missing", for: request)
        }
        let client = FakeOAuth.client(of: request, fields: fields)
        guard client.id == Self.clientID else { return FakeOAuth.error("invalid_client", "Invalid client", for: request) }
        let isPublic = client.secret == nil
        if !isPublic, client.secret != Self.clientSecret {
            return FakeOAuth.error("invalid_client", "Invalid client secret", for: request)
        }
        let grant: FakeTokenAuthority.Grant
        var withRefresh = true
        do throws(FakeTokenAuthority.Refusal) {
            switch grantType {
            case "authorization_code":
                guard let code = fields["code"] else { return FakeOAuth.error("invalid_request", "code must be supplied", for: request) }
                if isPublic, fields["code_verifier"] == nil {
                    return FakeOAuth.error("invalid_request", "code_verifier required", for: request)
                }
                grant = try tokenAuthority.redeem(code: code, redirectURI: fields["redirect_uri"], verifier: fields["code_verifier"])
            case "refresh_token":
                guard let refresh = fields["refresh_token"] else {
                    return FakeOAuth.error("invalid_request", "refresh_token must be supplied", for: request)
                }
                // A public client's refresh token is single-use; a confidential one keeps its own.
                grant = try tokenAuthority.useRefreshToken(refresh, rotates: isPublic)
                withRefresh = isPublic
            case "client_credentials":
                guard !isPublic else { return FakeOAuth.error("invalid_client", "Invalid client", for: request) }
                grant = FakeTokenAuthority.Grant(user: nil, scope: "")
                withRefresh = false
            default:
                return FakeOAuth.error("unsupported_grant_type", "grant_type parameter is invalid: \(grantType)", for: request)
            }
        } catch {
            return FakeOAuth.error(error.error, error.description, for: request)
        }
        let issued = tokenAuthority.issue(grant, grantType: grantType, withRefreshToken: withRefresh)
        return FakeOAuth.token(access: issued.access, refresh: issued.refresh, expiresIn: Self.tokenLifetime, tokenType: "Bearer",
                               scope: grantType == "client_credentials" ? nil : grant.scope, for: request)
    }

    // MARK: Web API

    private func checkToken(_ request: RecordedRequest) -> FakeOAuth.Authorization {
        guard let scheme = request.authorizationScheme else { return .refused(Self.error(401, "No token provided", for: request)) }
        guard scheme == "Bearer" else {
            return .refused(Self.error(400, "Only valid bearer authentication supported", for: request))
        }
        switch tokenAuthority.check(request.authorizationCredentials) {
        case .valid(let grant): return .granted(grant)
        case .expired: return .refused(Self.error(401, "The access token expired", for: request))
        case .unknown: return .refused(Self.error(401, "Invalid access token", for: request))
        }
    }

    private func api(_ request: RecordedRequest, grant: FakeTokenAuthority.Grant) -> HTTPResponse {
        let segments = request.path.split(separator: "/").map(String.init)
        guard request.method == .get, segments.first == "v1" else { return Self.error(404, "Service not found", for: request) }
        switch (segments.count, segments.count > 1 ? segments[1] : "") {
        case (2, "me"):
            guard let user = grant.user else {
                return Self.error(403, "This request requires user authentication.", for: request)
            }
            return .json(me(user, scopes: Set(grant.scope.split(separator: " ").map(String.init))), for: request)
        case (3, "tracks"):
            let id = segments[2]
            guard SpotifyTrackID(id)?.rawValue == id else { return Self.error(400, "invalid id", for: request) }
            guard let track = Self.tracks.first(where: { $0.id == id }) else {
                return Self.error(404, "Resource not found", for: request)
            }
            return .json(Self.json(track), for: request)
        case (2, "search"):
            return search(request)
        default:
            return Self.error(404, "Service not found", for: request)
        }
    }

    private func search(_ request: RecordedRequest) -> HTTPResponse {
        guard let query = request.queryValue("q"), !query.isEmpty else { return Self.error(400, "No search query", for: request) }
        guard let types = request.queryValue("type") else { return Self.error(400, "Missing parameter type", for: request) }
        guard types.split(separator: ",").allSatisfy({ ["album", "artist", "playlist", "track", "show", "episode", "audiobook"].contains($0) }) else {
            return Self.error(400, "Bad search type field", for: request)
        }
        let limit = request.queryValue("limit").map { Int($0) ?? -1 } ?? 5
        let offset = request.queryValue("offset").map { Int($0) ?? -1 } ?? 0
        guard (0...10).contains(limit) else { return Self.error(400, "Invalid limit", for: request) }
        guard offset >= 0 else { return Self.error(400, "Invalid offset", for: request) }
        var answer: [String: JSON] = [:]
        if types.split(separator: ",").contains("track") {
            let words = query.lowercased().split(separator: " ")
            let found = Self.tracks.filter { track in words.allSatisfy { track.name.lowercased().contains($0) } }
            let page = found.dropFirst(offset).prefix(limit)
            let base = "https://\(Self.apiHost)/v1/search?query=\(FormEncoding.percentEncode(query))&type=track"
            let next = offset + limit < found.count ? JSON.string("\(base)&offset=\(offset + limit)&limit=\(limit)") : .null
            let previous = offset > 0 ? JSON.string("\(base)&offset=\(max(0, offset - limit))&limit=\(limit)") : .null
            answer["tracks"] = [
                "href": .string("\(base)&offset=\(offset)&limit=\(limit)"), "items": .array(page.map(Self.json)),
                "limit": FakeOAuth.number(limit), "next": next, "offset": FakeOAuth.number(offset), "previous": previous,
                "total": FakeOAuth.number(found.count),
            ]
        }
        return .json(.object(answer), for: request)
    }

    private func me(_ user: String, scopes: Set<String>) -> JSON {
        let id = String(user.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) })
        var object: [String: JSON] = [
            "display_name": .string(user == Self.defaultUser ? "StreamPlay Tester" : user), "id": .string(id),
            "uri": .string("spotify:user:\(id)"), "type": "user", "href": .string("https://\(Self.apiHost)/v1/users/\(id)"),
            "external_urls": ["spotify": .string("https://open.spotify.com/user/\(id)")], "images": [],
        ]
        guard !omitsRestrictedUserFields else { return .object(object) }
        object["followers"] = ["href": nil, "total": 0]
        if scopes.contains("user-read-private") {
            object["country"] = "DE"
            object["product"] = "premium"
            object["explicit_content"] = ["filter_enabled": false, "filter_locked": false]
        }
        if scopes.contains("user-read-email") { object["email"] = .string("\(user)@example.com") }
        return .object(object)
    }

    /// A track object.
    static func json(_ track: (id: String, name: String, duration: Int, preview: Bool)) -> JSON {
        // The shapes of Spotify's SimplifiedArtistObject and SimplifiedAlbumObject (SpotifyWebAPISchema).
        let artist: JSON = ["id": "0StrmPlyStubArtist0001", "name": "Stub Artist", "type": "artist",
                            "uri": "spotify:artist:0StrmPlyStubArtist0001",
                            "href": .string("https://\(apiHost)/v1/artists/0StrmPlyStubArtist0001"),
                            "external_urls": ["spotify": "https://open.spotify.com/artist/0StrmPlyStubArtist0001"]]
        let album: JSON = ["id": "0StrmPlyStubAlbum00001", "name": "Stub Album", "type": "album", "album_type": "album",
                           "total_tracks": FakeOAuth.number(tracks.count), "uri": "spotify:album:0StrmPlyStubAlbum00001",
                           "href": .string("https://\(apiHost)/v1/albums/0StrmPlyStubAlbum00001"), "images": [],
                           "release_date": "2026-01-01", "release_date_precision": "day", "artists": [artist],
                           "external_urls": ["spotify": "https://open.spotify.com/album/0StrmPlyStubAlbum00001"]]
        return [
            "id": .string(track.id), "name": .string(track.name), "uri": .string("spotify:track:\(track.id)"),
            "type": "track", "duration_ms": FakeOAuth.number(track.duration),
            "preview_url": track.preview ? .string("https://\(cdnHost)/mp3-preview/\(track.id.lowercased())?cid=\(clientID)") : .null,
            "artists": [artist], "album": album,
            "disc_number": 1, "track_number": 1, "explicit": false, "is_local": false, "popularity": 0,
            "href": .string("https://\(apiHost)/v1/tracks/\(track.id)"),
            "external_urls": ["spotify": .string("https://open.spotify.com/track/\(track.id)")],
            "external_ids": ["isrc": "XXSTB2600001"],
        ]
    }

    /// Spotify's error object: `{"error": {"status": N, "message": M}}`.
    static func error(_ status: Int, _ message: String, for request: RecordedRequest) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if status == 401 {
            headers.set("WWW-Authenticate", "Bearer realm=\"spotify\", error=\"invalid_token\", error_description=\"\(message)\"")
        }
        return .json(["error": ["status": FakeOAuth.number(status), "message": .string(message)]], status: status,
                     headers: headers, for: request)
    }
}
