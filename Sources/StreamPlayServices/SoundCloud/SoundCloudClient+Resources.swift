import StreamPlay

extension SoundCloudClient {
    /// The signed-in user (`GET /me`); needs a user's token (authorization code sign-in).
    public func me() async throws(SoundCloudError) -> SoundCloudUser {
        try SoundCloudUser(json: try await get("/me"))
    }

    /// A user by numeric id or URN (`soundcloud:users:ID`).
    public func user(_ id: String) async throws(SoundCloudError) -> SoundCloudUser {
        guard let urn = SoundCloudURN.user(id) else { throw .invalidRequest(reason: "not a user id or URN: \(id)") }
        return try SoundCloudUser(json: try await get("/users/\(urn)"))
    }

    /// A playlist by numeric id or URN (`soundcloud:playlists:ID`).
    public func playlist(_ id: String) async throws(SoundCloudError) -> SoundCloudPlaylist {
        guard let urn = SoundCloudURN(id.trimmedWhitespace, kind: "playlists") else {
            throw .invalidRequest(reason: "not a playlist id or URN: \(id)")
        }
        return try SoundCloudPlaylist(json: try await get("/playlists/\(urn)"))
    }

    /// A track by numeric id (`123`) or URN (`soundcloud:tracks:123`).
    public func track(_ id: String) async throws(SoundCloudError) -> SoundCloudTrack {
        let urn = try trackURN(id)
        return try SoundCloudTrack(json: try await get("/tracks/\(urn)"))
    }

    /// What a soundcloud.com link (or an on.soundcloud.com short link) points to, through
    /// `GET /resolve`, whose redirect to the resource is followed with the OAuth header (it is
    /// on the API's host). A track, user or playlist URN is looked up directly. The kind comes
    /// from the answer's `kind`, or, as the schema does not require it, from its `urn`.
    public func resolve(_ link: String) async throws(SoundCloudError) -> SoundCloudResource {
        if let urn = SoundCloudURN(link) {
            switch urn.kind {
            case "tracks": return .track(try await track(urn.description))
            case "users": return .user(try await user(urn.description))
            case "playlists": return .playlist(try await playlist(urn.description))
            default: break
            }
        }
        let json = try await get("/resolve", parameters: [("url", link)])
        let urnKind = json["urn"]?.string.flatMap(SoundCloudURN.init).map { String($0.kind.dropLast()) }
        switch json["kind"]?.string ?? urnKind {
        case "track": return .track(try SoundCloudTrack(json: json))
        case "user": return .user(try SoundCloudUser(json: json))
        case "playlist": return .playlist(try SoundCloudPlaylist(json: json))
        case let kind?: return .other(kind: kind, json: json)
        case nil: throw .invalidResponse(reason: "the resolved resource has neither a kind nor a urn", status: 200)
        }
    }

    /// The URN of a track id or URN.
    func trackURN(_ id: String) throws(SoundCloudError) -> SoundCloudURN {
        guard let urn = SoundCloudURN.track(id.trimmedWhitespace) else {
            throw .invalidRequest(reason: "not a track id or URN: \(id)")
        }
        return urn
    }
}
