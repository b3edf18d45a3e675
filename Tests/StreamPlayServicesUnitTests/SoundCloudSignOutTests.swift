import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// Signing out of SoundCloud: the token host's `/sign-out`, and the local tokens always gone.
@Suite("SoundCloud sign-out")
struct SoundCloudSignOutTests {
    @Test("signOut posts the access token to /sign-out on the token host, which ends it; the stored token is deleted")
    func signOut() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport, store: store)
        let request = await client.oauth.makeAuthorizationRequest()
        try await client.oauth.completeAuthorization(request, redirect: fake.authorize(request))
        let token = try #require(await client.oauth.currentToken?.accessToken)
        #expect(client.signOutURL == "https://\(FakeSoundCloud.authHost)/sign-out")
        try await client.signOut()
        #expect(await client.oauth.isAuthenticated == false)
        #expect(try store.load(account: "soundcloud") == nil)
        let posted = try #require(fake.transport.requests(toHost: FakeSoundCloud.authHost).last)
        #expect(posted.method == .post && posted.path == "/sign-out")
        #expect(try JSON(parsing: posted.bodyBytes)["access_token"]?.string == token)
        let after = try await fake.transport.send(HTTPRequest(url: "https://\(FakeSoundCloud.apiHost)/me",
                                                              headers: ["Authorization": "OAuth \(token)"]))
        #expect(after.status == 401, "SoundCloud ended the token")
    }

    @Test("a refused sign-out is reported, and the local tokens are deleted anyway")
    func remoteFailure() async throws {
        let fake = FakeSoundCloud()
        let store = InMemoryTokenStore()
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport, store: store)
        let request = await client.oauth.makeAuthorizationRequest()
        try await client.oauth.completeAuthorization(request, redirect: fake.authorize(request))
        fake.transport.failNext(status: 503, host: FakeSoundCloud.authHost, pathPrefix: "/sign-out")
        await #expect(throws: SoundCloudError.self) { try await client.signOut() }
        #expect(await client.oauth.isAuthenticated == false)
        #expect(try store.load(account: "soundcloud") == nil)
    }

    @Test("without a session nothing is sent")
    func noSession() async throws {
        let fake = FakeSoundCloud()
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport)
        try await client.signOut()
        #expect(fake.transport.requests(toHost: FakeSoundCloud.authHost).isEmpty)
    }
}
