import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// The rendition choice against today's SoundCloud: the order, what the engine can play,
/// `access`, snippets passed off as tracks, and DRM.
@Suite("SoundCloud stream choice")
struct SoundCloudStreamChoiceTests {
    static func client(_ fake: FakeSoundCloud) async throws -> SoundCloudClient {
        let client = SoundCloudClient(configuration: fake.configuration, http: fake.transport,
                                      retryPolicy: ServiceRetryPolicy(maximumRetries: 0, initialDelay: 0, maximumDelay: 0))
        try await client.oauth.authenticateWithClientCredentials()
        return client
    }

    @Test("the engine says MP3, AAC and Opus play, as files and in HLS")
    func capability() {
        for codec in AudioCodec.allCases {
            #expect(Player.canPlay(codec, delivery: .hls) && PlayableFormats.canPlay(codec, delivery: .progressive), "\(codec)")
        }
    }

    @Test("renditions are ordered hls_aac_160, hls_mp3_128, http_mp3_128, preview; unplayable and encrypted ones left out")
    func order() {
        let streams = SoundCloudStreams(renditions: [
            "preview_mp3_128": "p", "http_mp3_128": "h", "hls_mp3_128": "m", "hls_aac_160": "a",
            "ctr-encrypted-hls": "c", "cbc-encrypted-hls": "f",
        ])
        #expect(streams.preferred.map(\.name) == ["hls_aac_160", "hls_mp3_128", "http_mp3_128", "preview_mp3_128"])
        #expect(streams.playableNames == ["hls_aac_160", "hls_mp3_128", "http_mp3_128", "preview_mp3_128"])
        #expect(streams.fullTrack == ["hls_aac_160", "hls_mp3_128", "http_mp3_128"] && streams.previews == ["preview_mp3_128"])
        #expect(streams.encrypted == ["cbc-encrypted-hls", "ctr-encrypted-hls"])
        let aac = SoundCloudRendition(name: "hls_aac_160")
        #expect(aac.codec == .aac && aac.delivery == .hls && aac.bitrate == 160 && aac.isPlayable)
    }

    @Test("access blocked is a typed error")
    func blocked() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000010, permalink: "blocked", title: "Blocked", access: "blocked"))
        let client = try await Self.client(fake)
        await #expect(throws: SoundCloudError.blocked(title: "Blocked")) {
            try await client.stream(forTrack: "2000010", allowPreview: true)
        }
    }

    @Test("access preview: every rendition is a snippet, played only when allowed and flagged")
    func previewAccess() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000011, permalink: "teaser", title: "Teaser", access: "preview", renditions: ["hls_mp3_128"]))
        let client = try await Self.client(fake)
        await #expect(throws: SoundCloudError.previewOnly(title: "Teaser")) { try await client.stream(forTrack: "2000011") }
        let stream = try await client.stream(forTrack: "2000011", allowPreview: true)
        #expect(stream.isPreview && stream.rendition == "hls_mp3_128" && stream.duration == nil)
    }

    @Test("a full-track rendition served from a /preview/ path is not passed off as the track")
    func previewPathOnCDN() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000012, permalink: "snippet", title: "Snippet", renditions: ["http_mp3_128"],
                       durationMilliseconds: 215_000, servesSnippet: true))
        let client = try await Self.client(fake)
        await #expect(throws: SoundCloudError.previewOnly(title: "Snippet")) { try await client.stream(forTrack: "2000012") }
        let stream = try await client.stream(forTrack: "2000012", allowPreview: true)
        #expect(stream.isPreview && stream.rendition == "http_mp3_128" && stream.previewReason?.contains("preview path") == true)
        #expect(SoundCloudStream.hasPreviewPath("https://cf-media.sndcdn.com/preview/abc.mp3?Expires=1"))
        #expect(!SoundCloudStream.hasPreviewPath("https://cf-media.sndcdn.com/media/preview_mp3_128x/a.mp3"))
    }

    @Test("an HLS playlist far shorter than the track is a snippet; a clear full rendition after it wins")
    func shortPlaylist() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000013, permalink: "short-hls", title: "Short HLS", renditions: ["hls_mp3_128", "preview_mp3_128"],
                       durationMilliseconds: 215_000, servesSnippet: true))
        let client = try await Self.client(fake)
        await #expect(throws: SoundCloudError.previewOnly(title: "Short HLS")) { try await client.stream(forTrack: "2000013") }
        let stream = try await client.stream(forTrack: "2000013", allowPreview: true)
        #expect(stream.isPreview && stream.rendition == "hls_mp3_128")
        #expect(stream.previewReason == "the hls_mp3_128 playlist lasts 30 s of the track's 215 s")
        let resolved = try await StreamResolver(soundCloud: client).resolve("soundcloud:tracks:2000013")
        #expect(resolved.isPreview && resolved.previewReason == stream.previewReason)
        #expect(resolved.description.contains("preview (the hls_mp3_128 playlist lasts 30 s"))
    }

    @Test("encrypted renditions are skipped for a clear one, and alone are a DRM error")
    func drm() async throws {
        let fake = FakeSoundCloud()
        fake.add(.init(id: 2000014, permalink: "drm-and-mp3", title: "DRM and MP3",
                       renditions: ["ctr-encrypted-hls", "cbc-encrypted-hls", "http_mp3_128"]))
        fake.add(.init(id: 2000015, permalink: "drm-only", title: "DRM Only", renditions: ["ctr-encrypted-hls", "cbc-encrypted-hls"]))
        fake.add(.init(id: 2000016, permalink: "sample-aes", title: "Sample AES", renditions: ["hls_mp3_128"],
                       playlistKeyMethod: "SAMPLE-AES"))
        let client = try await Self.client(fake)
        #expect(try await client.stream(forTrack: "2000014").rendition == "http_mp3_128")
        await #expect(throws: SoundCloudError.drmProtected(title: "DRM Only", renditions: ["cbc-encrypted-hls", "ctr-encrypted-hls"])) {
            try await client.stream(forTrack: "2000015", allowPreview: true)
        }
        await #expect {
            try await client.stream(forTrack: "2000016")
        } throws: { error in
            guard case SoundCloudError.drmProtected(_, let renditions) = error else { return false }
            return renditions == ["hls_mp3_128 (SAMPLE-AES)"] && "\(error)".contains("DRM")
        }
    }
}
