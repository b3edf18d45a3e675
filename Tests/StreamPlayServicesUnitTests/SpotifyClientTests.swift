import StreamPlay
@testable import StreamPlayServices
import StreamPlayTesting
import Testing

/// SpotifyClient against FakeSpotify.
@Suite("SpotifyClient, in memory")
struct SpotifyClientTests {
    static let fastRetries = ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0, maximumDelay: 5)

    static func signedIn(_ fake: FakeSpotify, configuration: ServiceConfiguration? = nil) async throws -> SpotifyClient {
        let client = SpotifyClient(configuration: configuration ?? fake.configuration, http: fake.transport,
                                   retryPolicy: fastRetries)
        let request = try await client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("/v1/me answers the signed-in user with the fields its scopes allow")
    func me() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let me = try await client.me()
        #expect(me.id == "streamplaytester" && me.displayName == "StreamPlay Tester")
        #expect(me.product == "premium" && me.country == "DE" && me.email == "streamplay-tester@example.com")
        fake.omitsRestrictedUserFields = true
        let restricted = try await client.me()
        #expect(restricted.id == "streamplaytester" && restricted.product == nil && restricted.email == nil)
        let calls = fake.transport.requests(toHost: FakeSpotify.apiHost)
        #expect(calls.count == 2 && calls.allSatisfy { $0.authorizationScheme == "Bearer" })
    }

    @Test("a public client signs in with PKCE alone and its rotated refresh token is kept")
    func publicClient() async throws {
        let fake = FakeSpotify()
        var configuration = fake.configuration
        configuration.clientSecret = nil
        let client = try await Self.signedIn(fake, configuration: configuration)
        let first = try #require(await client.oauth.currentToken?.refreshToken)
        let exchange = try #require(fake.transport.requests(toHost: FakeSpotify.accountsHost).first)
        #expect(exchange.authorizationScheme == nil && exchange.formValue("client_id") == FakeSpotify.clientID)
        #expect(exchange.formValue("code_verifier") != nil && exchange.formValue("client_secret") == nil)
        try await client.renewSession()
        let second = try #require(await client.oauth.currentToken?.refreshToken)
        #expect(second != first)
        try await client.renewSession()
        #expect(fake.tokensIssued(grantType: "refresh_token") == 2)
    }

    @Test("an expired token's 401 renews the session once and replays; a confidential client keeps its refresh token")
    func unauthorizedReplayed() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let refresh = await client.oauth.currentToken?.refreshToken
        fake.expireAccessTokens()
        let track = try await client.track("spotify:track:0StrmPlyPreviewTrack01")
        #expect(track.name == "Preview Track" && track.durationMilliseconds == 30000)
        #expect(fake.tokensIssued(grantType: "refresh_token") == 1)
        #expect(fake.transport.requests(toHost: FakeSpotify.apiHost).count == 2)
        #expect(await client.oauth.currentToken?.refreshToken == refresh)
    }

    @Test("tracks: a preview URL or null, 404 for an unknown id, no request for a malformed one")
    func tracks() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let preview = try await client.previewStream(forTrack: "https://open.spotify.com/intl-de/track/0StrmPlyPreviewTrack01")
        #expect(preview.url.hasPrefix("https://\(FakeSpotify.cdnHost)/mp3-preview/") && preview.artistNames == ["Stub Artist"])
        await #expect(throws: SpotifyError.noPreview(trackID: "0StrmPlyNoPreviewTrk01", name: "No Preview Track")) {
            try await client.previewStream(forTrack: "0StrmPlyNoPreviewTrk01")
        }
        await #expect(throws: SpotifyError.api(status: 404, message: "Resource not found", reason: nil)) {
            try await client.track("0000000000000000000000")
        }
        let before = fake.transport.requests.count
        await #expect(throws: SpotifyError.invalidTrackID("not-a-track")) { try await client.track("not-a-track") }
        #expect(fake.transport.requests.count == before)
    }

    @Test("search answers a paging object of tracks, limit 0 to 10")
    func search() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let (json, status) = try await client.requestJSON(.get, "/search", query: [("q", "preview track"), ("type", "track")])
        #expect(status == 200)
        let page = try #require(json["tracks"])
        #expect(page["total"]?.int == 2 && page["limit"]?.int == 5 && page["offset"]?.int == 0)
        #expect(page["items"]?.array?.compactMap { $0["id"]?.string } == ["0StrmPlyPreviewTrack01", "0StrmPlyNoPreviewTrk01"])
        let (second, _) = try await client.requestJSON(.get, "/search", query: [("q", "track"), ("type", "track"), ("limit", "1"), ("offset", "1")])
        #expect(second["tracks"]?["items"]?[0]?["name"]?.string == "No Preview Track")
        #expect(second["tracks"]?["next"]?.isNull == true && second["tracks"]?["previous"]?.string != nil)
        await #expect(throws: SpotifyError.api(status: 400, message: "Invalid limit", reason: nil)) {
            try await client.requestJSON(.get, "/search", query: [("q", "x"), ("type", "track"), ("limit", "50")])
        }
    }

    @Test("a 429 with Retry-After is retried as the policy says")
    func rateLimit() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        fake.rateLimitNext(2, retryAfter: 0, pathPrefix: "/v1/me")
        #expect(try await client.me().id == "streamplaytester")
        #expect(fake.transport.requests(toHost: FakeSpotify.apiHost).count == 3)
        fake.rateLimitNext(3, retryAfter: 0, pathPrefix: "/v1/me")
        await #expect(throws: SpotifyError.rateLimited(retryAfter: 0)) { try await client.me() }
    }
}
