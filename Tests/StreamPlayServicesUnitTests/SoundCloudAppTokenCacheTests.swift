import FoundationEssentials
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// SoundCloud's app tokens (client credentials) cached in the token store and shared: they are
/// rationed (50 per 12 hours per app), so a second client, a second task or an expired token
/// must not cost a new one.
@Suite("SoundCloud app token cache, in memory")
struct SoundCloudAppTokenCacheTests {
    static let appAccount = AppTokenCache.account(for: "soundcloud")

    static func client(_ fake: FakeSoundCloud, store: InMemoryTokenStore) -> SoundCloudClient {
        SoundCloudClient(configuration: fake.configuration, http: fake.transport, store: store,
                         retryPolicy: ServiceRetryPolicy(maximumRetries: 1, initialDelay: 0, maximumDelay: 1))
    }

    @Test("a second client of the same store takes up the cached token: one token request in all")
    func secondClientReuses() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let first = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        #expect(try store.load(account: Self.appAccount) == first, "cached under soundcloud-app")
        #expect(try store.load(account: "soundcloud") == nil, "never taken for a user's session")
        let second = Self.client(fake, store: store)
        let token = try await second.oauth.authenticateWithClientCredentials()
        #expect(token.accessToken == first.accessToken)
        #expect(try await second.track("soundcloud:tracks:1001").title == "Full Track")
        #expect(fake.transport.requests(toHost: FakeSoundCloud.authHost).count == 1)
    }

    @Test("an expired cached token is renewed with the refresh grant, not a new client credentials grant")
    func expiredUsesRefreshGrant() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        var cached = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        cached.expiresAt = Date(timeIntervalSinceNow: -10)
        try store.save(cached, account: Self.appAccount)
        let client = Self.client(fake, store: store)
        let renewed = try await client.oauth.authenticateWithClientCredentials()
        #expect(renewed.accessToken != cached.accessToken && !renewed.isExpired())
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
        #expect(fake.tokensIssued(grantType: "refresh_token") == 1)
        let refresh = try #require(fake.transport.requests(toHost: FakeSoundCloud.authHost).last)
        #expect(refresh.formValue("grant_type") == "refresh_token")
        #expect(try store.load(account: Self.appAccount) == renewed, "the renewed token is cached")
    }

    @Test("a cached token the API answers 401 is renewed once (refresh grant) and the request replayed")
    func rejectedTokenRenewed() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let client = Self.client(fake, store: store)
        let before = try await client.oauth.authenticateWithClientCredentials()
        fake.expireAccessTokens()
        #expect(try await client.track("soundcloud:tracks:1001").title == "Full Track")
        #expect(fake.tokensIssued(grantType: "refresh_token") == 1)
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
        #expect(try store.load(account: Self.appAccount)?.accessToken != before.accessToken)
    }

    @Test("a refused refresh token (used or revoked) falls back to one new client credentials grant")
    func refusedRefreshFallsBack() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        var cached = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        cached.expiresAt = Date(timeIntervalSinceNow: -10)
        try store.save(cached, account: Self.appAccount)
        fake.revokeRefreshTokens()
        let token = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        #expect(!token.isExpired())
        #expect(fake.tokensIssued(grantType: "client_credentials") == 2)
    }

    @Test("eight clients of one store asking at once, on different threads: one token request")
    func concurrentClients() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let clients = (0..<8).map { _ in Self.client(fake, store: store) }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for client in clients {
                group.addTask { try await client.oauth.authenticateWithClientCredentials().accessToken }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(fake.transport.requests(toHost: FakeSoundCloud.authHost).count == 1)
    }

    @Test("signing out of an app session deletes the cached app token")
    func signOutRemovesCache() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let client = Self.client(fake, store: store)
        try await client.oauth.authenticateWithClientCredentials()
        try await client.signOut()
        #expect(try store.load(account: Self.appAccount) == nil)
    }

    @Test("without a store, nothing is cached and each client fetches its own (as before)")
    func noStore() async throws {
        let fake = FakeSoundCloud()
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport)
        #expect(client.oauth.appTokenCache == nil)
        try await client.oauth.authenticateWithClientCredentials()
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
    }
}
