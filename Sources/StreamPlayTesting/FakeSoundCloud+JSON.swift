import StreamPlayServices

extension FakeSoundCloud {
    /// A track object: the OpenAPI's Track members the clients read, plus `id` when
    /// ``includesNumericIDs``.
    func json(_ track: Track) -> JSON {
        var object: [String: JSON] = [
            "kind": "track", "urn": .string(track.urn), "title": .string(track.title),
            "permalink": .string(track.permalink),
            "permalink_url": .string("https://soundcloud.com/\(Self.artist)/\(track.permalink)"),
            "uri": .string("https://\(Self.apiHost)/tracks/\(track.urn)"),
            "stream_url": .string("https://\(Self.apiHost)/tracks/\(track.urn)/stream"),
            "duration": FakeOAuth.number(track.durationMilliseconds), "access": .string(track.access),
            "streamable": .bool(track.streamable), "downloadable": false, "download_url": nil, "sharing": "public",
            "tag_list": "", "genre": "Electronic", "description": nil, "state": "finished",
            "created_at": "2026/01/15 15:40:49 +0000", "license": "all-rights-reserved", "embeddable_by": "all",
            "artwork_url": nil, "waveform_url": nil, "playback_count": 0, "favoritings_count": 0, "reposts_count": 0,
            "comment_count": 0, "commentable": true, "user": user(id: 100002, name: Self.artist),
        ]
        if includesNumericIDs {
            object["id"] = FakeOAuth.number(track.id)
            object["user_id"] = 100002
        }
        return .object(object)
    }

    /// A user object.
    func user(id: Int, name: String) -> JSON {
        var object: [String: JSON] = [
            "kind": "user", "urn": .string("soundcloud:users:\(id)"), "username": .string(name),
            "permalink": .string(name), "permalink_url": .string("https://soundcloud.com/\(name)"),
            "uri": .string("https://\(Self.apiHost)/users/soundcloud:users:\(id)"),
            "avatar_url": "https://i1.sndcdn.com/avatars-000000000000-aaaaaa-large.jpg", "city": nil, "country": nil,
            "description": nil, "full_name": .string(name == Self.defaultUser ? "StreamPlay Tester" : "Stub Artist"),
            "followers_count": 0, "followings_count": 0, "track_count": .number(id == 100002 ? 3 : 0),
            "playlist_count": 0, "public_favorites_count": 0, "reposts_count": 0,
            "created_at": "2026/01/01 12:08:25 +0000", "last_modified": "2026/01/03 12:08:25 +0000",
        ]
        if includesNumericIDs { object["id"] = FakeOAuth.number(id) }
        return .object(object)
    }

    /// The `/me` object of the signed-in user: the user plus the Me schema's own members.
    func me(_ name: String) -> JSON {
        guard case .object(var object) = user(id: 100001, name: name) else { return .null }
        object["plan"] = "Free"
        object["primary_email_confirmed"] = true
        object["private_tracks_count"] = 0
        object["private_playlists_count"] = 0
        object["locale"] = .null
        object["online"] = false
        object["quota"] = ["unlimited_upload_quota": false, "upload_seconds_used": 0, "upload_seconds_left": 10800]
        object["upload_seconds_left"] = 10800
        return .object(object)
    }
}
