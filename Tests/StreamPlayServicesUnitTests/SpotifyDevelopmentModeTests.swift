import StreamPlay
@testable import StreamPlayServices
import StreamPlayTesting
import Testing

/// Spotify's February 2026 Development Mode rules, against FakeSpotify: a smaller `/me`,
/// search limits, removed endpoints and used-up quotas, each a plain answer or a typed error.
@Suite("Spotify Development Mode rules, in memory")
struct SpotifyDevelopmentModeTests {
    static func signedIn(_ fake: FakeSpotify) async throws -> SpotifyClient {
        let client = SpotifyClient(configuration: fake.configuration, http: fake.transport,
                                   retryPolicy: ServiceRetryPolicy(maximumRetries: 3, initialDelay: 0, maximumDelay: 5))
        let request = try await client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("/me without product, email, country, explicit_content and followers is a normal user")
    func smallerMe() async throws {
        let fake = FakeSpotify()
        fake.omitsRestrictedUserFields = true
        let me = try await Self.signedIn(fake).me()
        #expect(me.id == "streamplaytester" && me.product == nil && me.email == nil && me.country == nil)
        #expect(me.isPremium == nil, "unknown, not false")
    }

    @Test("search asks for at most 10 results: more is a typed error before any request; 10 and the default work")
    func searchLimit() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let before = fake.transport.requests(toHost: FakeSpotify.apiHost).count
        await #expect(throws: SpotifyError.searchLimitTooLarge(requested: 11, maximum: 10)) {
            try await client.searchTracks("track", limit: 11)
        }
        #expect(fake.transport.requests(toHost: FakeSpotify.apiHost).count == before, "nothing sent")
        let ten = try await client.searchTracks("track", limit: 10)
        #expect(!ten.isEmpty && ten.count <= 10)
        _ = try await client.searchTracks("preview")
        let sent = try #require(fake.transport.requests(toHost: FakeSpotify.apiHost).last)
        #expect(sent.queryValue("limit") == "5" && sent.queryValue("type") == "track")
    }

    @Test("a 429 with reason QUOTA_EXCEEDED is a quotaExceeded error at once, not retried; a plain 429 is retried")
    func quotaExceeded() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        let body = Array(#"{"error": {"status": 429, "message": "Quota exceeded", "reason": "QUOTA_EXCEEDED"}}"#.utf8)
        fake.transport.failNext(1, status: 429, retryAfter: 0, host: FakeSpotify.apiHost, pathPrefix: "/v1/me", body: body)
        let before = fake.transport.requests(toHost: FakeSpotify.apiHost).count
        await #expect(throws: SpotifyError.quotaExceeded(message: "Quota exceeded")) { try await client.me() }
        #expect(fake.transport.requests(toHost: FakeSpotify.apiHost).count == before + 1, "one request, no retry")
        fake.rateLimitNext(1, retryAfter: 0, pathPrefix: "/v1/tracks")
        #expect(try await client.track("0StrmPlyPreviewTrack01").name == "Preview Track", "an ordinary 429 is retried")
    }

    @Test("a refusal of an endpoint development mode removed names the restriction; others stay plain API errors")
    func removedEndpoints() async throws {
        let fake = FakeSpotify()
        let client = try await Self.signedIn(fake)
        fake.transport.failNext(1, status: 403, host: FakeSpotify.apiHost, pathPrefix: "/v1/recommendations",
                                body: Array(#"{"error": {"status": 403, "message": "Forbidden"}}"#.utf8))
        do throws(SpotifyError) {
            _ = try await client.request(.get, "/recommendations", query: [("seed_tracks", "0StrmPlyPreviewTrack01")])
            Issue.record("expected an error")
        } catch {
            guard case .endpointRemoved(let endpoint, let restriction, let status) = error else {
                Issue.record("expected endpointRemoved, got \(error)")
                return
            }
            #expect(endpoint == "GET /recommendations" && status == 403)
            #expect(restriction.contains("2024-11-27"))
        }
        do throws(SpotifyError) {
            _ = try await client.request(.get, "/playlists/37i9dQZF1DXcBWIGoYBM5M/tracks")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("/items"), "names the replacement: \(error)")
        }
        // A 404 for something that still exists is not passed off as a removal.
        await #expect(throws: SpotifyError.api(status: 404, message: "Resource not found", reason: nil)) {
            try await client.track("0000000000000000000000")
        }
    }

    @Test("the restriction table: removed paths and methods named, the ones still there not")
    func table() {
        #expect(SpotifyRestriction.restriction(forPath: "/artists/abc/related-artists") != nil)
        #expect(SpotifyRestriction.restriction(forPath: "/audio-features/abc") != nil)
        #expect(SpotifyRestriction.restriction(forPath: "/me/tracks", method: .put)?.contains("/me/library") == true)
        #expect(SpotifyRestriction.restriction(forPath: "/tracks?ids=a,b") != nil)
        #expect(SpotifyRestriction.restriction(forPath: "/tracks/abc") == nil)
        #expect(SpotifyRestriction.restriction(forPath: "/me") == nil)
        #expect(SpotifyRestriction.restriction(forPath: "/me/player/devices") == nil)
        #expect(SpotifyRestriction.restriction(forPath: "/playlists/abc/items") == nil)
        #expect(SpotifyRestriction.restriction(forPath: "/search") == nil)
    }
}
