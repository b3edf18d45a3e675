import StreamPlayServices
import Testing

/// SoundCloud's objects at the edges of the OpenAPI's schemas: every member is optional there,
/// unknown members may appear, and members may be null.
@Suite("SoundCloud objects at the schema's edges")
struct SoundCloudSchemaTests {
    static func parse(_ text: String) throws -> JSON {
        try JSON(parsing: Array(text.utf8))
    }

    @Test("a track with only its urn is read; the rest is nil or defaulted")
    func minimalTrack() throws {
        let track = try SoundCloudTrack(json: Self.parse(#"{"urn": "soundcloud:tracks:308946187"}"#))
        #expect(track.urn == "soundcloud:tracks:308946187" && track.id == nil)
        #expect(track.title == "soundcloud:tracks:308946187")
        #expect(track.durationMilliseconds == nil && track.duration == nil && track.access == nil)
        #expect(track.user == nil && track.streamable && !track.downloadable && !track.isPreviewOnly)
    }

    @Test("nulls are absent members, not errors")
    func nulls() throws {
        let json = try Self.parse("""
            {"urn": "soundcloud:tracks:1", "title": null, "duration": null, "access": null, "user": null,
             "streamable": null, "downloadable": null, "genre": null, "description": null, "tag_list": null,
             "permalink_url": null, "bpm": null, "available_country_codes": null, "download_url": null}
            """)
        let track = try SoundCloudTrack(json: json)
        #expect(track.title == "soundcloud:tracks:1" && track.access == nil && track.user == nil)
        #expect(track.streamable && track.durationMilliseconds == nil && track.genre == nil)
        let user = try SoundCloudUser(json: Self.parse(#"{"urn": "soundcloud:users:7", "username": null, "permalink": "seven", "followers_count": null}"#))
        #expect(user.username == "seven" && user.followersCount == nil && user.id == nil)
    }

    @Test("unknown members are ignored and kept in json")
    func unknownMembers() throws {
        let json = try Self.parse("""
            {"urn": "soundcloud:tracks:2", "title": "T", "access": "playable", "duration": 40000,
             "brand_new_member": {"nested": [1, 2, 3]}, "another": "x", "reveal_stats": true,
             "user": {"urn": "soundcloud:users:3", "username": "u", "subscriptions": [{"product": {"id": "p"}}]}}
            """)
        let track = try SoundCloudTrack(json: json)
        #expect(track.title == "T" && track.duration == 40 && track.user?.username == "u")
        #expect(track.json["brand_new_member"]?["nested"]?[2]?.int == 3)
    }

    @Test("the older shape: a numeric id alone gives the URN, and is kept")
    func numericIDOnly() throws {
        let track = try SoundCloudTrack(json: Self.parse(#"{"id": 1234, "title": "Old"}"#))
        #expect(track.id == 1234 && track.urn == "soundcloud:tracks:1234")
        let user = try SoundCloudUser(json: Self.parse(#"{"id": 12345, "username": "old"}"#))
        #expect(user.id == 12345 && user.urn == "soundcloud:users:12345")
    }

    @Test("an object with neither urn nor id, or no object at all, is refused")
    func noIdentifier() throws {
        #expect(throws: SoundCloudError.self) { try SoundCloudTrack(json: Self.parse(#"{"title": "Nameless"}"#)) }
        #expect(throws: SoundCloudError.self) { try SoundCloudUser(json: Self.parse(#"{"username": "x", "urn": null}"#)) }
        #expect(throws: SoundCloudError.self) { try SoundCloudTrack(json: Self.parse("[1, 2]")) }
        #expect(throws: SoundCloudError.self) { try SoundCloudPlaylist(json: Self.parse("null")) }
    }

    @Test("a playlist as the schema lists it: urn, embedded tracks, nulls")
    func playlist() throws {
        let json = try Self.parse("""
            {"urn": "soundcloud:playlists:9", "title": "Set", "track_count": 2, "duration": null, "user": null,
             "tracks": [{"urn": "soundcloud:tracks:1", "title": "A"}, {"title": "no urn"}], "kind": "playlist"}
            """)
        let playlist = try SoundCloudPlaylist(json: json)
        #expect(playlist.urn == "soundcloud:playlists:9" && playlist.title == "Set" && playlist.trackCount == 2)
        #expect(playlist.tracks.map(\.urn) == ["soundcloud:tracks:1"] && playlist.durationMilliseconds == nil)
    }

    @Test("streams: unknown keys and nulls are skipped or kept by name, never an error")
    func streams() throws {
        let streams = SoundCloudStreams(json: try Self.parse("""
            {"hls_aac_160_url": "https://api.soundcloud.com/tracks/x/streams/a", "http_mp3_128_url": null,
             "hls_opus_64_url": "https://api.soundcloud.com/tracks/x/streams/b", "note": 3}
            """))
        #expect(streams.names == ["hls_aac_160", "hls_opus_64"])
    }
}
