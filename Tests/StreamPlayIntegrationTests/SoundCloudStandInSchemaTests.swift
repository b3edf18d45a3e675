import Foundation
import StreamPlay
import StreamPlayTesting
import Testing
@testable import StreamPlayServices

/// The SoundCloud stand-in's answers that the tests rely on (tracks by URN, `/me`, `/resolve`,
/// playlists, streams, the token endpoint, errors), checked against SoundCloud's published
/// OpenAPI as ``SoundCloudAPISchema`` writes it down: a stand-in that drifts from the spec's
/// shapes fails here, and the client reads what it answers.
@Suite("SoundCloud stand-in answers against the OpenAPI schema", .serialized, .needsTestServers)
struct SoundCloudStandInSchemaTests {
    /// Every fixture track of the stand-in, and a synthetic one.
    static let tracks = [1001, 1002, 1003, 1004, 1005, 1006, 1007, 2_000_777]

    /// GETs `path` (or a full API URL) with `Authorization: OAuth TOKEN`, redirects not
    /// followed; the answer and its JSON body.
    static func answer(_ client: SoundCloudClient, _ path: String, status: Int = 200) async throws -> (HTTPResponse, JSON) {
        let token = try #require(await client.oauth.currentToken).accessToken
        let response = try await CurlHTTPClient().send(HTTPRequest(url: client.configuration.apiURL(path),
                                                                   headers: ["Authorization": "OAuth \(token)"]))
        try #require(response.status == status, "\(path): HTTP \(response.status)")
        return (response, try JSON(parsing: response.body))
    }

    /// Records every violation of `schema` by `json` (named `name` in the lines) as a failed
    /// expectation; returns whether it conformed.
    @discardableResult
    static func conforms(_ json: JSON, to schema: JSONObjectSchema, _ name: String) -> Bool {
        let violations = schema.violations(of: json, at: name)
        #expect(violations.isEmpty, "\(violations)")
        return violations.isEmpty
    }

    @Test("tracks by URN conform to Track (urn, no numeric id), and the client reads each")
    func tracksByURN() async throws {
        let client = try await SoundCloudTesting.appClient()
        for id in Self.tracks {
            let urn = "soundcloud:tracks:\(id)"
            let (_, json) = try await Self.answer(client, "/tracks/\(urn)")
            Self.conforms(json, to: SoundCloudAPISchema.track, "tracks/\(id)")
            #expect(json["urn"]?.string == urn && json["id"] == nil, "identified by urn only, as today's spec")
            #expect(json["user"]?["urn"]?.string == "soundcloud:users:100002")
            #expect(try SoundCloudTrack(json: json).urn == urn)
        }
    }

    @Test("/me with a user's token conforms to Me; a user by URN to User")
    func meAndUsers() async throws {
        let user = ServiceStubs.uniqueUser("sc-schema")
        let client = try await SoundCloudTesting.signedIn(as: user)
        let (_, me) = try await Self.answer(client, "/me")
        Self.conforms(me, to: SoundCloudAPISchema.me, "me")
        #expect(me["username"]?.string == user && me["quota"]?.object != nil)
        #expect(try await client.me().urn == me["urn"]?.string)
        let (_, artist) = try await Self.answer(client, "/users/soundcloud:users:100002")
        Self.conforms(artist, to: SoundCloudAPISchema.user, "users/100002")
        #expect(artist["username"]?.string == "stub-artist" && artist["urn"]?.string == "soundcloud:users:100002")
    }

    @Test("/me with the app's own token: 401 with the Error schema's body, as SoundCloud answers")
    func meWithAppToken() async throws {
        let client = try await SoundCloudTesting.appClient()
        let (_, body) = try await Self.answer(client, "/me", status: 401)
        Self.conforms(body, to: SoundCloudAPISchema.error, "me(401)")
        #expect(body["code"]?.int == 401)
        let (_, missing) = try await Self.answer(client, "/tracks/soundcloud:tracks:999", status: 404)
        Self.conforms(missing, to: SoundCloudAPISchema.error, "tracks/999(404)")
    }

    @Test("/resolve answers 302 with a Found body; what it points to conforms (track, user, playlist)")
    func resolve() async throws {
        let client = try await SoundCloudTesting.appClient()
        let links: [(String, JSONObjectSchema, String)] = [
            ("https://soundcloud.com/stub-artist/full-track", SoundCloudAPISchema.track, "/tracks/soundcloud:tracks:1001"),
            ("https://soundcloud.com/stub-artist/snippet-hls", SoundCloudAPISchema.track, "/tracks/soundcloud:tracks:1004"),
            ("https://on.soundcloud.com/stubAac1", SoundCloudAPISchema.track, "/tracks/soundcloud:tracks:1002"),
            ("https://soundcloud.com/stub-artist", SoundCloudAPISchema.user, "/users/soundcloud:users:100002"),
            ("https://soundcloud.com/stub-artist/sets/stub-set", SoundCloudAPISchema.playlist, "/playlists/soundcloud:playlists:5001"),
        ]
        for (link, schema, target) in links {
            let (response, found) = try await Self.answer(client, "/resolve?url=\(FormEncoding.percentEncode(link))", status: 302)
            Self.conforms(found, to: SoundCloudAPISchema.found, "resolve(\(link))")
            let location = try #require(response.headers["Location"])
            #expect(location.hasSuffix(target) && found["location"]?.string == location)
            let (_, resource) = try await Self.answer(client, location)
            Self.conforms(resource, to: schema, target)
        }
        guard case .playlist(let playlist) = try await client.resolve("https://soundcloud.com/stub-artist/sets/stub-set") else {
            Issue.record("the set link is not a playlist")
            return
        }
        #expect(playlist.urn == "soundcloud:playlists:5001" && playlist.title == "Stub Set")
    }

    @Test("a playlist by URN conforms to Playlist, its tracks to Track; the client reads it")
    func playlists() async throws {
        let client = try await SoundCloudTesting.appClient()
        let (_, json) = try await Self.answer(client, "/playlists/soundcloud:playlists:5001")
        Self.conforms(json, to: SoundCloudAPISchema.playlist, "playlists/5001")
        #expect(json["tracks"]?.array?.count == 2 && json["track_count"]?.int == 2)
        let (_, bare) = try await Self.answer(client, "/playlists/soundcloud:playlists:5001?show_tracks=false")
        Self.conforms(bare, to: SoundCloudAPISchema.playlist, "playlists/5001?show_tracks=false")
        #expect(bare["tracks"] == nil)
        let playlist = try await client.playlist("soundcloud:playlists:5001")
        #expect(playlist.tracks.map(\.urn) == ["soundcloud:tracks:1001", "soundcloud:tracks:1002"])
        #expect(playlist.durationMilliseconds == json["duration"]?.int && playlist.user?.username == "stub-artist")
    }

    @Test("/tracks/{urn}/streams conforms to Streams: API URLs under the track's streams")
    func streams() async throws {
        let client = try await SoundCloudTesting.appClient()
        for id in Self.tracks {
            let urn = "soundcloud:tracks:\(id)"
            let (_, json) = try await Self.answer(client, "/tracks/\(urn)/streams")
            Self.conforms(json, to: SoundCloudAPISchema.streams, "tracks/\(id)/streams")
            let urls = (json.object ?? [:]).values.compactMap(\.string)
            #expect(!urls.isEmpty && urls.allSatisfy { $0.hasPrefix(client.configuration.apiURL("/tracks/\(urn)/streams/")) })
        }
        let (_, full) = try await Self.answer(client, "/tracks/soundcloud:tracks:1001/streams")
        #expect(full.object?.keys.sorted() == ["hls_aac_160_url", "hls_mp3_128_url", "http_mp3_128_url", "preview_mp3_128_url"])
    }

    @Test("the token endpoint's answer has the members of the spec's ExpiringToken example")
    func tokenAnswer() async throws {
        let configuration = try ServiceStubs.configuration(.soundcloud)
        let secret = try #require(configuration.clientSecret)
        let basic = Data("\(configuration.clientID):\(secret)".utf8).base64EncodedString()
        let response = try await CurlHTTPClient().send(HTTPRequest(method: .post, url: configuration.tokenURL,
                                                                   headers: ["Authorization": "Basic \(basic)"],
                                                                   body: .form([("grant_type", "client_credentials")])))
        #expect(response.status == 200)
        let json = try JSON(parsing: response.body)
        Self.conforms(json, to: SoundCloudAPISchema.token, "token")
        #expect(json["expires_in"]?.int == 3599 && json["token_type"]?.string?.lowercased() == "bearer")
    }

    @Test("a deliberately wrong answer fails the check, naming each place")
    func wrongAnswerFails() async throws {
        let client = try await SoundCloudTesting.appClient()
        let (_, good) = try await Self.answer(client, "/tracks/soundcloud:tracks:1001")
        #expect(SoundCloudAPISchema.track.violations(of: good).isEmpty)
        var members = try #require(good.object)
        members["duration"] = .string("30000")
        members["access"] = .string("free")
        members["title"] = .null
        members["streamable"] = .string("yes")
        members["bpm"] = .string("fast")
        members["user"] = .object(["urn": .number(100002), "followers_count": .number(1.5)])
        let violations = SoundCloudAPISchema.track.violations(of: .object(members), at: "track")
        #expect(Set(violations.map { $0.prefix { $0 != ":" } }) == [
            "track.duration", "track.access", "track.title", "track.streamable", "track.bpm", "track.user.urn",
            "track.user.followers_count",
        ], "\(violations)")
        #expect(!SoundCloudAPISchema.track.violations(of: .array([good])).isEmpty, "an array is not a Track")
        let streams: JSON = .object(["hls_aac_160_url": .number(1), "ctr-encrypted-hls": .string("https://x")])
        #expect(SoundCloudAPISchema.streams.violations(of: streams) == ["$.hls_aac_160_url: must be a string"])
        let me: JSON = .object(["quota": .object(["upload_seconds_used": .string("0")]), "locale": .null, "online": .null])
        #expect(SoundCloudAPISchema.me.violations(of: me, at: "me") == [
            "me.online: null, which Me does not allow", "me.quota.upload_seconds_used: must be an integer",
        ])
        #expect(SoundCloudAPISchema.token.violations(of: .object(["expires_in": .number(3599)])).count == 2,
                "access_token and token_type are required")
    }
}
