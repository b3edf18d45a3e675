import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// Which rendition a track streams (HLS first, progressive MP3, AAC only), previews and
    /// snippets refused as the track, DRM typed, and the signed CDN URLs: played without the token,
    /// refreshed when expired.
    @Suite("SoundCloud streams and renditions")
    struct Streams {
        @Test("stream of 1001 without HLS: progressive MP3, the signed CDN URL played without the OAuth header")
        func progressiveStream() async throws {
            let client = try await SoundCloudTesting.appClient()
            let streams = try await client.streams(forTrack: "1001")
            #expect(streams.names == ["hls_aac_160", "hls_mp3_128", "http_mp3_128", "preview_mp3_128"])
            #expect(streams.playableNames == ["hls_aac_160", "hls_mp3_128", "http_mp3_128", "preview_mp3_128"])
            // Both HLS renditions come before the deprecated progressive MP3: refused here, so that the progressive one is taken.
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
            let mark = try ServiceStubs.logMark()
            let stream = try await client.stream(forTrack: "1001")
            #expect(stream.format == .progressive && stream.rendition == "http_mp3_128" && !stream.isPreview)
            #expect(stream.title == "Full Track" && stream.duration == 30 && stream.trackURN == "soundcloud:tracks:1001")
            #expect(stream.url.hasPrefix(try ServiceStubs.value(.soundcloud, "CDN_URL")))
            let left = try #require(stream.expiresAt).timeIntervalSinceNow
            #expect(left > 200 && left <= 301, "Expires read from the URL: \(left)")
            #expect(!stream.description.contains("Signature"))
            let resolving = try ServiceStubs.log(after: mark)
            #expect(!resolving.contains { $0["host"] as? String == "cdn" }, "the client never fetched the CDN itself")
            let rendition = try #require(resolving.first { ($0["path"] as? String)?.hasSuffix("/streams/http_mp3_128") == true })
            #expect(rendition["status"] as? Int == 302 && rendition["auth"] as? String == "OAuth")
            let playMark = try ServiceStubs.logMark()
            let answer = try await SoundCloudTesting.fetch(stream.url)
            #expect(answer.status == 206 && answer.headers["Content-Type"] == "audio/mpeg")
            let cdn = try #require(SoundCloudTesting.entries(after: playMark, host: "cdn").first)
            #expect(cdn["auth"] is NSNull, "no Authorization to the CDN")
            // The CDN does refuse the header: the check above is a real one.
            let token = try #require(await client.oauth.currentToken).accessToken
            let refused = try await SoundCloudTesting.fetch(stream.url, headers: ["Authorization": "OAuth \(token)"])
            #expect(refused.status == 400)
        }

        @Test("the AAC HLS rendition is chosen first, its playlist read without the token")
        func hlsFirst() async throws {
            let client = try await SoundCloudTesting.appClient()
            let track = SoundCloudTesting.syntheticTrack()
            let mark = try ServiceStubs.logMark()
            let stream = try await client.stream(forTrack: "soundcloud:tracks:\(track)")
            #expect(stream.format == .hls && stream.rendition == "hls_aac_160" && stream.title == "Synthetic Track \(track)")
            #expect(!stream.isPreview && stream.duration != nil, "a playlist as long as the track is the whole track")
            let checked = try SoundCloudTesting.entries(after: mark, host: "cdn")
            #expect(checked.count == 1 && checked.allSatisfy { $0["auth"] is NSNull }, "the playlist check sent no token")
            let playlist = try await SoundCloudTesting.fetch(stream.url, headers: [:])
            #expect(playlist.status == 200 && playlist.text.hasPrefix("#EXTM3U"))
        }

        @Test("an AAC-only track streams its AAC HLS rendition, whole")
        func aacOnly() async throws {
            let client = try await SoundCloudTesting.appClient()
            let stream = try await client.stream(forTrack: "1002")
            #expect(stream.rendition == "hls_aac_160" && stream.format == .hls && !stream.isPreview)
            #expect(stream.title == "AAC Only")
        }

        @Test("a preview-only track is refused as a preview unless previews are allowed")
        func previewOnly() async throws {
            let client = try await SoundCloudTesting.appClient()
            guard case .previewOnly(let title)? = await SoundCloudTesting.failure({ try await client.stream(forTrack: "1003") }) else {
                Issue.record("expected previewOnly")
                return
            }
            #expect(title == "Preview Only")
            let preview = try await client.stream(forTrack: "1003", allowPreview: true)
            #expect(preview.isPreview && preview.rendition == "preview_mp3_128" && preview.format == .progressive)
            #expect(try await SoundCloudTesting.fetch(preview.url).status == 206)
        }

        @Test("a track whose only full rendition is an AAC playlist far shorter than the track: a preview, never the track")
        func snippetPlaylist() async throws {
            let client = try await SoundCloudTesting.appClient()
            let track = try await client.track("1004")
            #expect(track.access == "playable" && track.durationMilliseconds == 240_000, "the track claims 4 minutes")
            guard case .previewOnly(let title)? = await SoundCloudTesting.failure({ try await client.stream(forTrack: "1004") }) else {
                Issue.record("the snippet was not refused as a preview")
                return
            }
            #expect(title == "Snippet HLS")
            let flagged = try await client.stream(forTrack: "soundcloud:tracks:1004", allowPreview: true)
            #expect(flagged.isPreview && flagged.rendition == "hls_aac_160" && flagged.format == .hls)
            #expect(flagged.duration == nil, "not given the whole track's length")
            #expect(flagged.previewReason?.contains("playlist lasts 24 s of the track's 240 s") == true, "\(flagged.previewReason ?? "")")
            // The stand-in's playlist really is the snippet the client says it is.
            let playlist = try await SoundCloudTesting.fetch(flagged.url, headers: [:])
            let seconds = playlist.text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
                .compactMap { Double($0.dropFirst("#EXTINF:".count).prefix { $0 != "," }) }.reduce(0, +)
            #expect(seconds > 20 && seconds < 30, "\(seconds) s")
        }

        @Test("a track whose full MP3 comes from a /preview/ CDN path: a preview, never the track")
        func snippetPath() async throws {
            let client = try await SoundCloudTesting.appClient()
            guard case .previewOnly(let title)? = await SoundCloudTesting.failure({ try await client.stream(forTrack: "1006") }) else {
                Issue.record("the snippet was not refused as a preview")
                return
            }
            #expect(title == "Snippet MP3")
            let flagged = try await client.stream(forTrack: "1006", allowPreview: true)
            #expect(flagged.isPreview && flagged.rendition == "http_mp3_128" && flagged.duration == nil)
            #expect(flagged.url.contains("/media/1006/preview/http_mp3_128/"))
            #expect(flagged.previewReason?.contains("preview path") == true, "\(flagged.previewReason ?? "")")
            let clip = try await SoundCloudTesting.fetch(flagged.url, headers: [:])
            let preview = try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/cbr-44k-stereo-short.mp3"))
            #expect(clip.status == 200 && clip.body == Array(preview), "the CDN serves the preview clip")
        }

        @Test("a track offered only as ctr-/cbc-encrypted HLS: the typed DRM error, the encrypted renditions never signed")
        func encryptedRenditions() async throws {
            let client = try await SoundCloudTesting.appClient()
            let streams = try await client.streams(forTrack: "1005")
            #expect(streams.encrypted == ["cbc-encrypted-hls", "ctr-encrypted-hls"] && streams.preferred.isEmpty)
            let mark = try ServiceStubs.logMark()
            for allowPreview in [false, true] {
                guard case .drmProtected(let title, let renditions)? = await SoundCloudTesting.failure({
                    try await client.stream(forTrack: "soundcloud:tracks:1005", allowPreview: allowPreview)
                }) else {
                    Issue.record("expected drmProtected (allowPreview: \(allowPreview))")
                    continue
                }
                #expect(title == "Encrypted Only" && renditions == ["cbc-encrypted-hls", "ctr-encrypted-hls"])
            }
            #expect(SoundCloudError.drmProtected(title: "Encrypted Only", renditions: []).description.contains("DRM"))
            let paths = try ServiceStubs.log(after: mark).compactMap { $0["path"] as? String }
            #expect(!paths.contains { $0.contains("encrypted-hls") }, "nothing encrypted was asked for: \(paths)")
        }

        @Test("a track whose AAC playlist is SAMPLE-AES (FairPlay): the typed DRM error naming the method")
        func sampleAESPlaylist() async throws {
            let client = try await SoundCloudTesting.appClient()
            guard case .drmProtected(let title, let renditions)? = await SoundCloudTesting.failure({ try await client.stream(forTrack: "1007") }) else {
                Issue.record("expected drmProtected")
                return
            }
            #expect(title == "Sample AES" && renditions == ["hls_aac_160 (SAMPLE-AES)"])
        }

        @Test("an expired signed URL gets 403 from the CDN; a refreshed one plays")
        func expiredCDNURL() async throws {
            try await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 1])
            defer { Task { try? await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 300]) } }
            let client = try await SoundCloudTesting.appClient()
            // The progressive rendition (both HLS renditions refused), whose media answers Range with 206.
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
            let stream = try await client.stream(forTrack: "1001")
            #expect(stream.rendition == "http_mp3_128")
            #expect(try #require(stream.expiresAt).timeIntervalSinceNow < 2)
            try await Task.sleep(for: .milliseconds(1300))
            #expect(try await SoundCloudTesting.fetch(stream.url).status == 403)
            let refreshed = try await client.refreshedStreamURL(forTrack: stream.trackURN, rendition: stream.rendition)
            #expect(refreshed != stream.url)
            #expect(try await SoundCloudTesting.fetch(refreshed).status == 206)
            let refresher = client.urlRefresher(for: stream)
            #expect(try await SoundCloudTesting.fetch(try await refresher(stream.url)).status == 206)
            // Back to the default now, not later: the next test may check a URL's lifetime.
            try await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 300])
        }

        @Test("a rendition URL already on the CDN is played as it is: no request, so no token")
        func renditionOnCDN() async throws {
            let client = try await SoundCloudTesting.appClient()
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
            try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
            let stream = try await client.stream(forTrack: "1001")
            let mark = try ServiceStubs.logMark()
            let url = try await client.signedURL(stream.url)
            #expect(url == stream.url)
            #expect(try ServiceStubs.logMark() == mark, "nothing was requested")
            #expect(try await SoundCloudTesting.fetch(url).status == 206)
            let cdn = try SoundCloudTesting.entries(after: mark, host: "cdn")
            #expect(cdn.count == 1 && cdn.allSatisfy { $0["auth"] is NSNull })
        }
    }
}
