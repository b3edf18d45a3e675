import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// The legacy sharing features (connections, `post_to`, `shared_to`) refused as SoundCloud may
/// refuse them today: a typed error naming the feature. The fake, like today's OpenAPI, has
/// no `/me/connections` and no upload endpoint, so it answers 404.
@Suite("SoundCloud legacy features")
struct SoundCloudLegacyTests {
    static func signedIn(_ fake: FakeSoundCloud) async throws -> SoundCloudClient {
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport)
        let request = await client.oauth.makeAuthorizationRequest()
        try await client.oauth.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("connections refused with 404 or 410 are legacyFeatureUnavailable, naming connections")
    func connections() async throws {
        let fake = FakeSoundCloud()
        let client = try await Self.signedIn(fake)
        await #expect {
            try await client.connections()
        } throws: { error in
            guard case SoundCloudError.legacyFeatureUnavailable(let feature, 404, _) = error else { return false }
            return feature.contains("connections") && "\(error)".contains("legacy")
        }
        fake.transport.failNext(status: 410, host: FakeSoundCloud.apiHost, pathPrefix: "/me/connections")
        await #expect {
            try await client.createConnection(service: .twitter, redirectURI: "http://127.0.0.1:1/back")
        } throws: { error in
            if case SoundCloudError.legacyFeatureUnavailable(_, 410, _) = error { return true }
            return false
        }
    }

    @Test("an upload refused with 400 is a legacy error only when it used post_to or shared_to")
    func uploadSharing() async throws {
        let fake = FakeSoundCloud()
        let client = try await Self.signedIn(fake)
        var upload = SoundCloudUpload(asset: .data([0xFF, 0xFB, 0x90, 0x00], filename: "a.mp3"), title: "Take")
        upload.sharingTargets = .nobody
        #expect(upload.usesLegacySharing)
        fake.transport.failNext(status: 400, host: FakeSoundCloud.apiHost, pathPrefix: "/tracks")
        await #expect {
            try await client.upload(upload)
        } throws: { error in
            guard case SoundCloudError.legacyFeatureUnavailable(let feature, 400, _) = error else { return false }
            return feature.contains("track[post_to]")
        }
        let plain = SoundCloudUpload(asset: .data([0xFF, 0xFB, 0x90, 0x00], filename: "a.mp3"), title: "Take")
        #expect(!plain.usesLegacySharing)
        fake.transport.failNext(status: 400, host: FakeSoundCloud.apiHost, pathPrefix: "/tracks")
        await #expect {
            try await client.upload(plain)
        } throws: { error in
            if case SoundCloudError.api(let body) = error { return body.status == 400 }
            return false
        }
    }
}
