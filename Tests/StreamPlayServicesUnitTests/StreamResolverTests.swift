import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// StreamResolver on in-memory services: links to streams.
@Suite("StreamResolver, in memory")
struct StreamResolverTests {
    @Test("a SoundCloud link becomes a signed CDN URL with a refresher, on one client-credentials token")
    func soundCloudLink() async throws {
        let fake = FakeSoundCloud()
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport)
        let resolver = StreamResolver(soundCloud: client)
        let stream = try await resolver.resolve("https://soundcloud.com/stub-artist/full-track")
        // AAC HLS comes first.
        #expect(stream.service == .soundcloud && stream.format == .hls && stream.title == "Full Track")
        #expect(stream.url.hasPrefix("https://\(FakeSoundCloud.cdnHost)/media/1001/hls_aac_160/playlist.m3u8?Expires="))
        #expect(stream.duration == 30 && stream.isPreview == false)
        let refresher = try #require(stream.refresher)
        let renewed = try await refresher(stream.url)
        #expect(renewed != stream.url && renewed.hasPrefix("https://\(FakeSoundCloud.cdnHost)/media/1001/"))
        let short = try await resolver.resolve("https://on.soundcloud.com/stubFull1")
        #expect(short.title == "Full Track")
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
        // Only the playlists were read (to tell a snippet from the track), never with the token.
        let cdn = fake.transport.requests(toHost: FakeSoundCloud.cdnHost)
        #expect(cdn.count == 2 && cdn.allSatisfy { $0.path.hasSuffix(".m3u8") && $0.headers["Authorization"] == nil })
    }

    @Test("a SoundCloud URN resolves; an AAC-only track resolves to its AAC HLS stream")
    func soundCloudURN() async throws {
        let fake = FakeSoundCloud()
        let resolver = StreamResolver(soundCloud: SoundCloudClient(configuration: fake.configuration, http: fake.transport))
        #expect(try await resolver.resolve("soundcloud:tracks:1003").isPreview)
        let aac = try await resolver.resolve("soundcloud:tracks:1002")
        #expect(!aac.isPreview && aac.format == .hls, "\(aac)")
    }

    @Test("a Spotify track link becomes its preview MP3; a track without one is not playable")
    func spotifyLink() async throws {
        let fake = FakeSpotify()
        let resolver = StreamResolver(spotify: SpotifyClient(configuration: fake.configuration, http: fake.transport))
        let preview = try await resolver.resolve("https://open.spotify.com/track/0StrmPlyPreviewTrack01?si=x")
        #expect(preview.service == .spotify && preview.isPreview && preview.title == "Preview Track")
        #expect(preview.url.hasPrefix("https://\(FakeSpotify.cdnHost)/mp3-preview/"))
        await #expect {
            try await resolver.resolve("spotify:track:0StrmPlyNoPreviewTrk01")
        } throws: { error in
            if case ResolverError.notPlayable = error { return true }
            return false
        }
        #expect(fake.tokensIssued(grantType: "client_credentials") == 1)
    }

    @Test("without a secret and a session, the resolver says to sign in and sends nothing")
    func noSession() async throws {
        let fake = FakeSoundCloud()
        var configuration = fake.configuration
        configuration.clientSecret = nil
        let resolver = StreamResolver(soundCloud: SoundCloudClient(configuration: configuration, http: fake.transport))
        await #expect {
            try await resolver.resolve("soundcloud:tracks:1001")
        } throws: { error in
            guard case ResolverError.serviceUnavailable(.soundcloud, let reason) = error else { return false }
            return reason.contains("streamplay login soundcloud")
        }
        #expect(fake.transport.requests.isEmpty)
    }
}
