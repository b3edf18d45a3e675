import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// SoundCloudClient against FakeSoundCloud: tokens, renewals, retries, the stream choice and
/// where the OAuth header goes.
@Suite("SoundCloudClient, in memory")
struct SoundCloudClientTests {
    static let fastRetries = ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0, maximumDelay: 5)

    static func client(_ fake: FakeSoundCloud, retryPolicy: ServiceRetryPolicy = fastRetries) -> SoundCloudClient {
        SoundCloudClient(configuration: fake.configuration, http: fake.transport, retryPolicy: retryPolicy)
    }

    /// A client signed in as a user through the authorization code flow.
    static func signedIn(_ fake: FakeSoundCloud) async throws -> SoundCloudClient {
        let client = client(fake)
        let request = await client.oauth.makeAuthorizationRequest()
        try await client.oauth.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("the client credentials token is fetched once, with HTTP Basic, and reused")
    func clientCredentialsOnce() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        let first = try await client.track("soundcloud:tracks:1001")
        let second = try await client.track("1003")
        _ = try await client.streams(forTrack: "soundcloud:tracks:1001")
        #expect(first.title == "Full Track" && second.title == "Preview Only")
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
        let tokenRequests = fake.transport.requests(toHost: FakeSoundCloud.authHost)
        #expect(tokenRequests.count == 1)
        #expect(tokenRequests.first?.authorizationScheme == "Basic")
        #expect(tokenRequests.first?.formValue("grant_type") == "client_credentials")
        let apiRequests = fake.transport.requests(toHost: FakeSoundCloud.apiHost)
        #expect(apiRequests.count == 3)
        #expect(Set(apiRequests.compactMap { $0.headers["Authorization"] }).count == 1)
        #expect(apiRequests.allSatisfy { $0.authorizationScheme == "OAuth" })
    }

    @Test("an authorization code sign-in sends the PKCE verifier, and /me answers the user")
    func authorizationCode() async throws {
        let fake = FakeSoundCloud()
        let client = try await Self.signedIn(fake)
        let me = try await client.me()
        #expect(me.username == FakeSoundCloud.defaultUser && me.urn == "soundcloud:users:100001")
        let exchange = try #require(fake.transport.requests(toHost: FakeSoundCloud.authHost).first)
        #expect(exchange.formValue("grant_type") == "authorization_code")
        #expect(exchange.formValue("code_verifier")?.count ?? 0 >= 43)
        #expect(exchange.formValue("redirect_uri") == "http://127.0.0.1:8765/callback")
    }

    @Test("a 401 renews the session with the refresh token once and replays the request")
    func unauthorizedReplayedAfterRefresh() async throws {
        let fake = FakeSoundCloud()
        let client = try await Self.signedIn(fake)
        let before = await client.oauth.currentToken?.accessToken
        fake.expireAccessTokens()
        let me = try await client.me()
        #expect(me.username == FakeSoundCloud.defaultUser)
        #expect(fake.tokensIssued(grantType: "refresh_token") == 1)
        let calls = fake.transport.requests(toHost: FakeSoundCloud.apiHost).filter { $0.path == "/me" }
        #expect(calls.count == 2)
        #expect(calls.first?.authorizationCredentials == before)
        #expect(calls.last?.authorizationCredentials != before)
        #expect(await client.oauth.currentToken?.accessToken == calls.last?.authorizationCredentials)
    }

    @Test("a refused refresh token ends the session")
    func refusedRefreshEndsSession() async throws {
        let fake = FakeSoundCloud()
        let client = try await Self.signedIn(fake)
        fake.expireAccessTokens()
        fake.revokeRefreshTokens()
        await #expect(throws: SoundCloudError.self) { try await client.me() }
        #expect(await client.oauth.isAuthenticated == false)
    }

    @Test("a 429 with Retry-After is retried as the policy says")
    func rateLimitRetried() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        fake.rateLimitNext(2, retryAfter: 0, pathPrefix: "/tracks/soundcloud:tracks:1001")
        let track = try await client.track("soundcloud:tracks:1001")
        #expect(track.title == "Full Track")
        #expect(fake.transport.requests(toHost: FakeSoundCloud.apiHost).count == 3)
    }

    @Test("a 429 beyond the retries, or with a wait beyond maximumDelay, is a rateLimited error at once")
    func rateLimitGivesUp() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        fake.rateLimitNext(3, retryAfter: 0)
        await #expect {
            try await client.track("1001")
        } throws: { error in
            guard case SoundCloudError.rateLimited(let reset, let retryAfter) = error else { return false }
            return reset != nil && retryAfter == 0
        }
        #expect(fake.transport.requests(toHost: FakeSoundCloud.apiHost).count == 3)
        fake.transport.removeAllRequests()
        fake.rateLimitNext(1, retryAfter: 3600)
        await #expect {
            try await client.track("1001")
        } throws: { error in
            guard case SoundCloudError.rateLimited(_, let retryAfter) = error else { return false }
            return retryAfter == 3600
        }
        #expect(fake.transport.requests(toHost: FakeSoundCloud.apiHost).count == 1)
    }

    @Test("the stream is the best rendition the engine plays (AAC HLS first), signed on the CDN; the OAuth header never reaches the CDN")
    func streamChoiceAndCDN() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        let stream = try await client.stream(forTrack: "soundcloud:tracks:1001")
        #expect(stream.rendition == "hls_aac_160" && stream.format == .hls && !stream.isPreview && stream.previewReason == nil)
        #expect(stream.url.hasPrefix("https://\(FakeSoundCloud.cdnHost)/media/1001/hls_aac_160/"))
        #expect(stream.expiresAt != nil && stream.duration == 30)
        let paths = fake.transport.requests(toHost: FakeSoundCloud.apiHost).map(\.path)
        #expect(paths == ["/tracks/soundcloud:tracks:1001", "/tracks/soundcloud:tracks:1001/streams",
                          "/tracks/soundcloud:tracks:1001/streams/hls_aac_160"])
        // The playlist was read (to tell a snippet from the track), without the header.
        let cdn = fake.transport.requests(toHost: FakeSoundCloud.cdnHost)
        #expect(cdn.count == 1 && cdn.allSatisfy { $0.headers["Authorization"] == nil })
        // The player fetches the signed URL without the header; the CDN would refuse one.
        let media = try await fake.transport.send(HTTPRequest(url: stream.url))
        #expect(media.status == 200)
        let withToken = try await fake.transport.send(HTTPRequest(url: stream.url, headers: ["Authorization": "OAuth x"]))
        #expect(withToken.status == 400)
        #expect(fake.transport.requests(toHost: FakeSoundCloud.cdnHost).filter { $0.headers["Authorization"] != nil }.count == 1)
    }

    @Test("a rendition the API refuses is skipped for the next; AAC HLS comes first; preview only needs allowPreview")
    func streamFallbacks() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000001, permalink: "hls-only", title: "HLS Only", renditions: ["hls_mp3_128", "hls_aac_160"]))
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        fake.transport.failNext(status: 404, host: FakeSoundCloud.apiHost,
                                pathPrefix: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
        fake.transport.failNext(status: 404, host: FakeSoundCloud.apiHost,
                                pathPrefix: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
        let fallback = try await client.stream(forTrack: "1001")
        #expect(fallback.rendition == "http_mp3_128" && fallback.format == .progressive)
        #expect(try await client.stream(forTrack: "2000001").rendition == "hls_aac_160")
        let aacOnly = try await client.stream(forTrack: "1002")
        #expect(aacOnly.rendition == "hls_aac_160" && aacOnly.format == .hls && !aacOnly.isPreview)
        await #expect(throws: SoundCloudError.previewOnly(title: "Preview Only")) {
            try await client.stream(forTrack: "1003")
        }
        let preview = try await client.stream(forTrack: "1003", allowPreview: true)
        #expect(preview.isPreview && preview.rendition == "preview_mp3_128" && preview.duration == nil)
        #expect(preview.previewReason?.contains("access: preview") == true)
    }

    @Test("a refreshed stream URL is signed anew")
    func refreshedURL() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        let stream = try await client.stream(forTrack: "1001")
        let renewed = try await client.refreshedStreamURL(forTrack: stream.trackURN, rendition: stream.rendition)
        #expect(renewed != stream.url && renewed.hasPrefix("https://\(FakeSoundCloud.cdnHost)/media/1001/hls_aac_160/"))
    }

    @Test("/resolve's redirect is followed on the API host with the header")
    func resolve() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        guard case .track(let track) = try await client.resolve("https://soundcloud.com/stub-artist/full-track") else {
            Issue.record("not a track")
            return
        }
        #expect(track.urn == "soundcloud:tracks:1001")
        guard case .user(let user) = try await client.resolve("https://soundcloud.com/stub-artist") else {
            Issue.record("not a user")
            return
        }
        #expect(user.username == "stub-artist")
        await #expect(throws: SoundCloudError.self) { try await client.resolve("https://soundcloud.com/nobody/nothing") }
        let resolves = fake.transport.requests(toHost: FakeSoundCloud.apiHost)
        #expect(resolves.allSatisfy { $0.authorizationScheme == "OAuth" })
        #expect(resolves.map(\.path).prefix(2) == ["/resolve", "/tracks/soundcloud:tracks:1001"])
    }

    @Test("/me with the app's own token: 401, typed as needing a user's sign-in; the app token is not renewed for it")
    func meNeedsUser() async throws {
        let fake = FakeSoundCloud()
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        #expect(await client.oauth.isAppSession)
        await #expect {
            try await client.me()
        } throws: { error in
            if case SoundCloudError.userSignInRequired(let body) = error { return body.status == 401 }
            return false
        }
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
        #expect(fake.tokensIssued(grantType: "refresh_token") == 0)
        #expect(fake.transport.requests.filter { $0.path == "/me" }.count == 1, "asked once, not replayed")
    }

    @Test("tracks and users as today's OpenAPI lists them (urn, no numeric id) are read and addressed by URN")
    func urnOnlyTracks() async throws {
        let fake = FakeSoundCloud()
        #expect(fake.includesNumericIDs == false)
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        let track = try await client.track("soundcloud:tracks:1001")
        #expect(track.urn == "soundcloud:tracks:1001" && track.id == nil && track.title == "Full Track")
        #expect(track.user?.urn == "soundcloud:users:100002" && track.user?.id == nil)
        let user = try await client.user("soundcloud:users:100002")
        #expect(user.urn == "soundcloud:users:100002" && user.id == nil && user.username == "stub-artist")
        _ = try await client.stream(forTrack: "1001")
        let paths = fake.transport.requests(toHost: FakeSoundCloud.apiHost).map(\.path)
        #expect(paths.allSatisfy { !$0.hasPrefix("/tracks/") || $0.hasPrefix("/tracks/soundcloud:tracks:") })
        #expect(paths.allSatisfy { !$0.hasPrefix("/users/") || $0.hasPrefix("/users/soundcloud:users:") })
    }

    @Test("the older shape with numeric ids is still read, and the id kept")
    func numericIDsKept() async throws {
        let fake = FakeSoundCloud()
        fake.includesNumericIDs = true
        let client = Self.client(fake)
        try await client.oauth.authenticateWithClientCredentials()
        let track = try await client.track("1001")
        #expect(track.id == 1001 && track.urn == "soundcloud:tracks:1001" && track.user?.id == 100002)
    }
}
