import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices
import StreamPlayTesting

/// StreamResolver against the service stand-ins, and the Player playing what it resolves.
@Suite("Stream resolver", .serialized, .needsTestServers)
struct ResolverTests {
    static func soundCloud() throws -> SoundCloudClient {
        SoundCloudClient(configuration: try ServiceStubs.configuration(.soundcloud))
    }

    /// A confidential Spotify client (no token swap service), so client credentials work.
    static func spotify() throws -> SpotifyClient {
        var configuration = try ServiceStubs.configuration(.spotify)
        configuration.tokenSwapURL = nil
        configuration.tokenRefreshURL = nil
        return SpotifyClient(configuration: configuration)
    }

    /// Plays `resolved` into a WAV file with its refresher, returning the end state and PCM.
    static func play(_ resolved: ResolvedStream) async throws -> (state: PlayerState, samples: [Int16]) {
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        player.play(.remote(resolved.url), urlRefresher: resolved.refresher)
        let state = try await player.finish(within: 90)
        let samples = FileManager.default.fileExists(atPath: path) ? try PCM.wavSamples(path: path).samples : []
        return (state, samples)
    }

    @Test("A SoundCloud page without MP3 HLS resolves to its signed progressive MP3, which plays exactly")
    func soundCloudPage() async throws {
        let resolver = StreamResolver(soundCloud: try Self.soundCloud())
        try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
        try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
        let resolved = try await resolver.resolve("https://soundcloud.com/stub-artist/full-track")
        #expect(resolved.service == .soundcloud)
        #expect(resolved.format == .progressive)
        #expect(resolved.title == "Full Track")
        #expect(resolved.duration.map { abs($0 - 30) < 0.01 } == true)
        #expect(resolved.url.hasPrefix(try ServiceStubs.value(.soundcloud, "CDN_URL")))
        #expect(resolved.expiresAt.map { $0 > Date() } == true)
        #expect(!resolved.isPreview && resolved.refresher != nil)
        #expect(!resolved.description.contains("Signature"), "the description shows no signature")
        let result = try await Self.play(resolved)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("cbr-44k-stereo.mp3")).samples) == nil)
    }

    @Test("A signed URL that expired before playback starts is renewed through the refresher")
    func expiredBeforePlay() async throws {
        let resolved = try await Self.resolveThenExpire {
            try await ServiceStubs.fail(.soundcloud, status: 404, path: "/tracks/soundcloud:tracks:2000101/streams/hls_aac_160")
            try await ServiceStubs.fail(.soundcloud, status: 404, path: "/tracks/soundcloud:tracks:2000101/streams/hls_mp3_128")
            return try await StreamResolver(soundCloud: try Self.soundCloud()).resolve("soundcloud:tracks:2000101")
        }
        let mark = try ServiceStubs.logMark()
        let result = try await Self.play(resolved)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("cbr-44k-stereo.mp3")).samples) == nil)
        let cdn = try Self.cdnStatuses(after: mark)
        #expect(cdn.first == 403 && cdn.dropFirst().contains(200), "the expired URL was refused, the fresh one served: \(cdn)")
    }

    @Test("The AAC HLS rendition (fragmented MP4, as SoundCloud's) is chosen first and plays the whole track exactly")
    func hlsRendition() async throws {
        let resolver = StreamResolver(soundCloud: try Self.soundCloud())
        let resolved = try await resolver.resolve("https://soundcloud.com/stub-artist/synthetic-2000102")
        #expect(resolved.format == .hls)
        #expect(resolved.url.contains(".m3u8"))
        #expect(resolved.url.contains("hls_aac_160"))
        let result = try await Self.play(resolved)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("hls/fmp4/stream")).samples) == nil)
    }

    /// Resolves while the stand-in CDN signs URLs for 1 s, then waits until that signature has
    /// expired; URLs signed afterwards last 5 minutes again, as the real ones do.
    static func resolveThenExpire(_ resolve: () async throws -> ResolvedStream) async throws -> ResolvedStream {
        try await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 1])
        do {
            let resolved = try await resolve()
            try await Task.sleep(for: .milliseconds(1500))
            try await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 300])
            return resolved
        } catch {
            try? await ServiceStubs.configure(.soundcloud, ["cdn_expiry": 300])
            throw error
        }
    }

    /// The HTTP statuses the stand-in CDN answered since `mark`, in order.
    static func cdnStatuses(after mark: Int) throws -> [Int] {
        try SoundCloudTesting.entries(after: mark, host: "cdn").compactMap { $0["status"] as? Int }
    }

    /// A synthetic track, which resolves to AAC HLS (first of its renditions).
    static func resolveHLS(_ id: Int) async throws -> ResolvedStream {
        let resolved = try await StreamResolver(soundCloud: try soundCloud()).resolve("soundcloud:tracks:\(id)")
        try #require(resolved.format == .hls)
        return resolved
    }

    @Test("An HLS playlist whose signed URL expired before playback is fetched again through the refresher")
    func hlsExpiredBeforePlay() async throws {
        let resolved = try await Self.resolveThenExpire { try await Self.resolveHLS(2000103) }
        let mark = try ServiceStubs.logMark()
        let result = try await Self.play(resolved)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("hls/fmp4/stream")).samples) == nil)
        let cdn = try Self.cdnStatuses(after: mark)
        #expect(cdn.first == 403 && cdn.dropFirst().allSatisfy { $0 == 200 }, "\(cdn)")
    }

    @Test("An HLS segment refused as expired mid-play is taken from a freshly signed playlist, without a gap")
    func hlsSegmentExpiresWhilePlaying() async throws {
        let resolved = try await Self.resolveHLS(2000104)
        // The CDN refuses the third segment once, as it does a URL whose signature expired.
        let segment = "/media/2000104/hls_aac_160/seg002"
        try await ServiceStubs.fail(.soundcloud, host: "cdn", status: 403, path: segment)
        let mark = try ServiceStubs.logMark()
        let result = try await Self.play(resolved)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("hls/fmp4/stream")).samples) == nil, "the audio goes on where it stopped")
        let cdn = try ServiceStubs.log(after: mark).filter { $0["host"] as? String == "cdn" }
            .map { (path: ($0["path"] as? String) ?? "", status: ($0["status"] as? Int) ?? 0) }
        let refused = try #require(cdn.firstIndex { $0.path.hasPrefix(segment) && $0.status == 403 }, "\(cdn)")
        let resigned = cdn[refused...].firstIndex { $0.path.hasSuffix(".m3u8") && $0.status == 200 }
        let retried = cdn[refused...].firstIndex { $0.path.hasPrefix(segment) && $0.status == 200 }
        #expect(resigned != nil && retried != nil && resigned! < retried!,
                "the playlist was signed again, then the segment fetched: \(cdn)")
    }

    @Test("AAC-only tracks resolve to their AAC HLS; preview-only tracks resolve to a preview, said so")
    func notPlayable() async throws {
        let resolver = StreamResolver(soundCloud: try Self.soundCloud())
        let aac = try await resolver.resolve("https://soundcloud.com/stub-artist/aac-only")
        #expect(aac.format == .hls && !aac.isPreview && aac.url.contains("hls_aac_160"))
        let preview = try await resolver.resolve("soundcloud:tracks:1003")
        #expect(preview.isPreview)
        #expect(preview.description.contains("preview"))
        do {
            _ = try await resolver.resolve("soundcloud:tracks:1003", allowPreview: false)
            Issue.record("a preview was taken without allowPreview")
        } catch {
            #expect(error.description.contains("preview"))
        }
    }

    @Test("SoundCloud snippets resolve flagged as previews (and play as the clip), or fail as previews; never as the track")
    func soundCloudSnippets() async throws {
        let resolver = StreamResolver(soundCloud: try Self.soundCloud())
        let short = try await resolver.resolve("https://soundcloud.com/stub-artist/snippet-hls")
        #expect(short.isPreview && short.duration == nil && short.format == .hls)
        #expect(short.previewReason?.contains("playlist lasts") == true && short.description.contains("preview"), "\(short)")
        let clip = try await resolver.resolve("https://soundcloud.com/stub-artist/snippet-mp3")
        #expect(clip.isPreview && clip.duration == nil && clip.previewReason?.contains("preview path") == true, "\(clip)")
        let result = try await Self.play(clip)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil, "the clip is what played")
        for link in ["https://soundcloud.com/stub-artist/snippet-hls", "soundcloud:tracks:1006"] {
            do {
                let taken = try await resolver.resolve(link, allowPreview: false)
                Issue.record("a snippet was taken without allowPreview: \(taken)")
            } catch {
                guard case .notPlayable = error else {
                    Issue.record("not notPlayable: \(error)")
                    continue
                }
                #expect(error.description.contains("only a preview"), "\(error)")
            }
        }
    }

    @Test("SoundCloud tracks offered only with DRM fail with an error that names DRM")
    func soundCloudDRM() async throws {
        let resolver = StreamResolver(soundCloud: try Self.soundCloud())
        for link in ["https://soundcloud.com/stub-artist/encrypted-only", "https://soundcloud.com/stub-artist/sample-aes"] {
            do {
                let taken = try await resolver.resolve(link)
                Issue.record("a DRM-only track resolved: \(taken)")
            } catch {
                guard case .notPlayable = error else {
                    Issue.record("not notPlayable: \(error)")
                    continue
                }
                #expect(error.description.contains("DRM"), "\(error)")
            }
        }
    }

    @Test("A Spotify track resolves to its preview MP3, plainly marked; none without preview_url")
    func spotifyPreview() async throws {
        let resolver = StreamResolver(spotify: try Self.spotify())
        let resolved = try await resolver.resolve("https://open.spotify.com/track/0StrmPlyPreviewTrack01?si=x")
        #expect(resolved.isPreview && resolved.service == .spotify && resolved.title == "Preview Track")
        #expect(resolved.requestHeaders.fields.isEmpty)
        let result = try await Self.play(resolved)
        #expect(SampleDifference.between(result.samples, (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil)
        do {
            _ = try await resolver.resolve("spotify:track:0StrmPlyNoPreviewTrk01")
            Issue.record("a track without preview resolved")
        } catch {
            #expect(error.description.contains("own player"))
        }
    }

    @Test("Plain links pass through; services that are not configured are named")
    func plainAndUnconfigured() async throws {
        let resolver = StreamResolver()
        let plain = try await resolver.resolve("http://127.0.0.1:1/live/index.m3u8?token=x")
        #expect(plain.format == .hls && plain.service == nil && plain.url == "http://127.0.0.1:1/live/index.m3u8?token=x")
        #expect(try await resolver.resolve("/tmp/a.mp3").format == .progressive)
        do {
            _ = try await resolver.resolve("soundcloud:tracks:1001")
            Issue.record("resolved without a SoundCloud client")
        } catch {
            guard case .serviceUnavailable(.soundcloud, _) = error else { Issue.record("\(error)"); return }
        }
        // A public client without a session cannot use client credentials: it must sign in.
        var configuration = try ServiceStubs.configuration(.spotify)
        configuration.clientSecret = nil
        configuration.tokenSwapURL = nil
        configuration.tokenRefreshURL = nil
        let unsigned = StreamResolver(spotify: SpotifyClient(configuration: configuration))
        do {
            _ = try await unsigned.resolve("spotify:track:0StrmPlyPreviewTrack01")
            Issue.record("resolved without a session")
        } catch {
            #expect(error.description.contains("streamplay login spotify"))
        }
    }

    @Test("ResolvedStream clamps an absurd expiry or duration rather than trapping; no signature shown")
    func absurdNumbers() {
        let url = "https://cdn.example/a.mp3?Signature=secret-sig&Expires=1"
        let far = ResolvedStream(url: url, expiresAt: Date(timeIntervalSince1970: 1e300), format: .progressive, duration: 1e300)
        #expect(far.secondsUntilExpiry == Int(ResolvedStream.longestTime))
        #expect(far.description.contains("expires in \(Int(ResolvedStream.longestTime)) s"), "\(far.description)")
        #expect(far.description.contains("duration \(Int(ResolvedStream.longestTime)) s"))
        #expect(!far.description.contains("secret-sig"))
        let odd = ResolvedStream(url: url, expiresAt: Date(timeIntervalSince1970: .infinity), format: .progressive, duration: .nan)
        #expect(odd.secondsUntilExpiry == Int(ResolvedStream.longestTime))
        #expect(!odd.description.contains("duration"))
        #expect(ResolvedStream(url: url, expiresAt: Date(timeIntervalSince1970: .nan), format: .progressive).secondsUntilExpiry == nil)
        #expect(ResolvedStream(url: url, expiresAt: Date(timeIntervalSinceNow: -60), format: .progressive).secondsUntilExpiry == 0)
        #expect(ResolvedStream(url: url, expiresAt: Date(timeIntervalSinceNow: 300), format: .progressive).secondsUntilExpiry.map { (299...300).contains($0) } == true)
        #expect(ResolvedStream(url: url, format: .progressive).secondsUntilExpiry == nil)
    }

    @Test("streamplay shows only allow-listed query values, and no private SoundCloud link's token")
    func commandLineRedaction() async throws {
        let home = try ServiceCommandLineTests.Home(services: [])
        defer { home.remove() }
        let link = "https://cdn.example/a.mp3?Signature=abc&Expires=123&hdnts=exp~acl~hmac&cid=7&Key-Pair-Id=K1"
            + "&secret_token=s-Zz9&X-Amz-Security-Token=t0k3nvalue&bare-token#frag"
        let resolve = try await ServiceCommandLineTests.run(["resolve", "--json", link], home: home)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(resolve.stdout.utf8)) as? [String: Any])
        #expect(object["url"] as? String == "https://cdn.example/a.mp3?Signature=[redacted]&Expires=123&hdnts=[redacted]&cid=7"
            + "&Key-Pair-Id=K1&secret_token=[redacted]&X-Amz-Security-Token=[redacted]&[redacted]")
        for secret in ["abc", "hmac", "s-Zz9", "t0k3nvalue", "bare-token", "frag"] {
            #expect(!resolve.stdout.contains(secret), "\(secret) shown")
        }
        let privateLink = "https://soundcloud.com/stub-artist/full-track/s-PrivAte123?secret_token=s-PrivAte123"
        let play = try await ServiceCommandLineTests.run(["--quiet", "--output", "null", privateLink], home: home)
        #expect(play.status != 0)
        #expect(play.stderr.contains("https://soundcloud.com/stub-artist/full-track/s-[redacted]"), "\(play.stderr)")
        #expect(!play.stderr.contains("PrivAte123") && !play.stdout.contains("PrivAte123"), "\(play.stderr)")
    }
}
