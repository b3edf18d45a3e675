import StreamPlay
@testable import StreamPlayServices
import StreamPlayTesting
import Testing

/// The client at the edges of Spotify's published objects (``SpotifyWebAPISchema``): optional
/// members absent, unknown members present, nullable members null. Each edge answer is first
/// checked against the schema, so that the test feeds the client something Spotify may send.
@Suite("Spotify answers at the schema's edges, in memory")
struct SpotifySchemaEdgeTests {
    static let trackID = "0StrmPlyEdgeTrack00001"

    static func client(_ fake: FakeSpotify, answering path: String, with body: JSON) async throws -> SpotifyClient {
        fake.transport.route(.get, host: FakeSpotify.apiHost, path: path) { request in .json(body, for: request) }
        let client = SpotifyClient(configuration: fake.configuration, http: fake.transport)
        let request = try await client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    static let artist: JSON = ["external_urls": [:], "href": "https://api.spotify.com/v1/artists/a", "id": "a", "name": "Artist",
                               "type": "artist", "uri": "spotify:artist:a"]

    /// A track with only the required members, one unknown member, and preview_url null.
    static var sparseTrack: JSON {
        let album: JSON = ["album_type": "single", "total_tracks": 1, "external_urls": [:], "href": "https://api.spotify.com/v1/albums/b",
                           "id": "b", "images": [], "name": "Album", "release_date": "2026", "release_date_precision": "year",
                           "type": "album", "uri": "spotify:album:b", "artists": [artist]]
        return ["album": album, "artists": [artist], "disc_number": 1, "duration_ms": 123_000, "explicit": false,
                "external_urls": [:], "href": .string("https://api.spotify.com/v1/tracks/\(trackID)"), "id": .string(trackID),
                "name": "Edge", "preview_url": nil, "track_number": 1, "type": "track", "uri": .string("spotify:track:\(trackID)"),
                "is_local": false, "a_member_from_the_future": ["x": 1]]
    }

    @Test("a track without the optional members, with an unknown one and preview_url null: read, and the no-preview error stays clear")
    func sparseTrackRead() async throws {
        #expect(SpotifyWebAPISchema.track.violations(of: Self.sparseTrack).isEmpty)
        let fake = FakeSpotify()
        let client = try await Self.client(fake, answering: "/v1/tracks/\(Self.trackID)", with: Self.sparseTrack)
        let track = try await client.track(Self.trackID)
        #expect(track.name == "Edge" && track.previewURL == nil && track.artistNames == ["Artist"] && track.albumName == "Album")
        await #expect(throws: SpotifyError.noPreview(trackID: Self.trackID, name: "Edge")) {
            try await client.previewStream(forTrack: Self.trackID)
        }
    }

    @Test("a /me with display_name null and none of the development-mode-removed members")
    func sparseUser() async throws {
        let me: JSON = ["display_name": nil, "external_urls": [:], "href": "https://api.spotify.com/v1/users/u", "id": "u",
                        "images": [], "type": "user", "uri": "spotify:user:u", "unknown": true]
        #expect(SpotifyWebAPISchema.user.violations(of: me).isEmpty)
        let user = try await Self.client(FakeSpotify(), answering: "/v1/me", with: me).me()
        #expect(user.id == "u" && user.displayName == nil && user.product == nil && user.isPremium == nil)
    }

    @Test("devices with a null id and volume, and a playback state with item, progress and context null")
    func nullsInThePlayer() async throws {
        let device: JSON = ["id": nil, "is_active": true, "is_private_session": false, "is_restricted": true, "name": "Restricted",
                            "type": "Speaker", "volume_percent": nil, "supports_volume": false, "new_flag": "x"]
        let devices: JSON = ["devices": [device]]
        #expect(SpotifyWebAPISchema.devices.violations(of: devices).isEmpty)
        let fake = FakeSpotify()
        let client = try await Self.client(fake, answering: "/v1/me/player/devices", with: devices)
        let listed = try await client.devices()
        #expect(listed.count == 1 && listed[0].id == nil && listed[0].volumePercent == nil && listed[0].isRestricted)

        let state: JSON = ["device": device, "repeat_state": "off", "shuffle_state": false, "context": nil, "timestamp": 1_700_000_000_000,
                           "progress_ms": nil, "is_playing": false, "item": nil, "currently_playing_type": "unknown",
                           "actions": ["disallows": [:]], "smart_shuffle": false]
        #expect(SpotifyWebAPISchema.playbackState.violations(of: state).isEmpty)
        fake.transport.route(.get, host: FakeSpotify.apiHost, path: "/v1/me/player") { request in .json(state, for: request) }
        let read = try #require(try await client.playbackState())
        #expect(read.track == nil && read.progressMilliseconds == nil && !read.isPlaying)
    }

    @Test("the schema catches what leaves it: a missing required member, a wrong type, a null where none is allowed")
    func schemaFails() {
        guard case .object(var track) = Self.sparseTrack else { return }
        track["duration_ms"] = nil
        track["explicit"] = "no"
        track["name"] = .null
        let found = SpotifyWebAPISchema.track.violations(of: .object(track), at: "track")
        #expect(found.contains { $0.hasPrefix("track.duration_ms") })
        #expect(found.contains { $0.hasPrefix("track.explicit") })
        #expect(found.contains { $0.hasPrefix("track.name") })
        #expect(SpotifyWebAPISchema.playbackState.violations(of: ["is_playing": true]).count >= 5)
    }

    @Test("FakeSpotify's own answers conform: tracks and /me (full and development-mode)")
    func fakeConforms() async throws {
        let fake = FakeSpotify()
        let client = SpotifyClient(configuration: fake.configuration, http: fake.transport)
        let request = try await client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        let token = try await client.oauth.accessToken()
        for path in ["/v1/tracks/0StrmPlyPreviewTrack01", "/v1/tracks/0StrmPlyNoPreviewTrk01", "/v1/me"] {
            for restricted in [false, true] {
                fake.omitsRestrictedUserFields = restricted
                let response = try await fake.transport.send(HTTPRequest(url: "https://\(FakeSpotify.apiHost)\(path)",
                                                                         headers: ["Authorization": "Bearer \(token)"]))
                let schema = path == "/v1/me" ? SpotifyWebAPISchema.user : SpotifyWebAPISchema.track
                let found = schema.violations(of: try JSON(parsing: response.body), at: path)
                #expect(found.isEmpty, "\(found)")
            }
        }
    }
}
