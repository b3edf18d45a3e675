import FoundationEssentials
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// Spotify's app token (client credentials, for track lookups without a user) cached in the
/// token store as SoundCloud's is: a second client of the same store asks for none, an expired
/// one is fetched again (Spotify gives app tokens no refresh token), and signing out deletes it.
@Suite("Spotify app token cache, in memory")
struct SpotifyAppTokenCacheTests {
    static let appAccount = AppTokenCache.account(for: "spotify")

    static func client(_ fake: FakeSpotify, store: InMemoryTokenStore) -> SpotifyClient {
        SpotifyClient(configuration: fake.configuration, http: fake.transport, store: store,
                      retryPolicy: ServiceRetryPolicy(maximumRetries: 1, initialDelay: 0, maximumDelay: 1))
    }

    @Test("two clients of one store: one token request; the token is under spotify-app, never the user's account")
    func sharedToken() async throws {
        let fake = FakeSpotify()
        let store = InMemoryTokenStore()
        let first = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        #expect(try store.load(account: Self.appAccount) == first)
        #expect(try store.load(account: "spotify") == nil, "not taken for a user's session")
        let second = Self.client(fake, store: store)
        #expect(try await second.oauth.authenticateWithClientCredentials().accessToken == first.accessToken)
        #expect(try await second.track("0StrmPlyPreviewTrack01").name == "Preview Track")
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
    }

    @Test("an expired cached token is replaced by a new grant, which is cached; signing out deletes it")
    func expiredAndSignOut() async throws {
        let fake = FakeSpotify()
        let store = InMemoryTokenStore()
        var cached = try await Self.client(fake, store: store).oauth.authenticateWithClientCredentials()
        cached.expiresAt = Date(timeIntervalSinceNow: -10)
        try store.save(cached, account: Self.appAccount)
        let client = Self.client(fake, store: store)
        let renewed = try await client.oauth.authenticateWithClientCredentials()
        #expect(renewed.accessToken != cached.accessToken && !renewed.isExpired())
        #expect(fake.tokensIssued(grantType: "client_credentials") == 2)
        #expect(try store.load(account: Self.appAccount) == renewed)
        await client.oauth.signOut()
        #expect(try store.load(account: Self.appAccount) == nil)
    }
}
