import Foundation
import Logging
import StreamPlay
import Synchronization
import Testing
@testable import StreamPlayServices

/// The SoundCloud client against the SoundCloud stand-in (scripts/service-stubs.py).
@Suite("SoundCloud client", .serialized, .needsTestServers)
struct SoundCloudTests {
    /// The error `operation` threw, or nil when it succeeded.
    static func failure<T>(_ operation: () async throws -> T) async -> SoundCloudError? {
        do {
            _ = try await operation()
            return nil
        } catch let error as SoundCloudError {
            return error
        } catch {
            Issue.record("not a SoundCloudError: \(error)")
            return nil
        }
    }

    /// The query field `name` of `url`.
    static func queryField(_ name: String, of url: String) -> String? {
        FormEncoding.decode(url.split(separator: "?").last.map(String.init) ?? "").first { $0.0 == name }?.1
    }

    // MARK: Sign-in

    @Test("sign-in with PKCE through the loopback listener; /me says who signed in")
    func signInWithLoopback() async throws {
        let user = ServiceStubs.uniqueUser("sc-login")
        let listener = try LoopbackRedirectListener()
        let client = try SoundCloudTesting.client(redirectURI: listener.redirectURI)
        let request = await client.oauth.makeAuthorizationRequest()
        #expect(request.url.hasPrefix(try ServiceStubs.value(.soundcloud, "AUTH_URL")))
        #expect(request.url.contains("code_challenge_method=S256") && request.url.contains("state=\(request.state)"))
        let mark = try ServiceStubs.logMark()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
        try await client.oauth.completeAuthorization(request, redirect: try await redirect)
        #expect(await client.oauth.isAuthenticated)
        let me = try await client.me()
        #expect(me.username == user)
        #expect(me.urn.hasPrefix("soundcloud:users:") && me.id == nil, "urn only, as today's OpenAPI")
        let entries = try ServiceStubs.log(after: mark)
        let exchange = try #require(entries.first { $0["path"] as? String == "/oauth/token" })
        #expect(exchange["grant_type"] as? String == "authorization_code")
        #expect(exchange["client_auth"] as? String == "basic", "a confidential client, HTTP Basic")
        #expect(exchange["status"] as? Int == 200)
        let call = try #require(entries.first { $0["host"] as? String == "api" && $0["path"] as? String == "/me" })
        #expect(call["auth"] as? String == "OAuth" && call["token_status"] as? String == "valid")
        #expect(call["user"] as? String == user)
    }

    @Test("client credentials: the app's token reads tracks; /me answers 401 (typed: sign in), the app token not renewed")
    func clientCredentials() async throws {
        let mark = try ServiceStubs.logMark()
        let client = try await SoundCloudTesting.appClient()
        #expect(try await client.track("1001").title == "Full Track")
        let grant = try #require(SoundCloudTesting.entries(after: mark, host: "auth").first)
        #expect(grant["grant_type"] as? String == "client_credentials" && grant["client_auth"] as? String == "basic")
        let meMark = try ServiceStubs.logMark()
        guard case .userSignInRequired(let body)? = await Self.failure({ try await client.me() }) else {
            Issue.record("a client-credentials token on /me was not refused as needing a user")
            return
        }
        #expect(body.status == 401 && body.code == 401)
        let calls = try ServiceStubs.log(after: meMark).filter { $0["service"] as? String == "soundcloud" }
        #expect(calls.count == 1, "one /me, no token renewal and no replay: \(calls.map { $0["path"] ?? "" })")
        #expect(calls.first?["status"] as? Int == 401 && calls.first?["token_status"] as? String == "app_token_on_user_endpoint")
    }

    @Test("the general request method: paths, full API URLs, parameters, form bodies; always the OAuth scheme")
    func generalRequests() async throws {
        let user = ServiceStubs.uniqueUser("sc-request")
        let client = try await SoundCloudTesting.signedIn(as: user)
        let mark = try ServiceStubs.logMark()
        #expect(try await client.request(.get, "me").response["username"]?.string == user)
        let api = try ServiceStubs.value(.soundcloud, "API_URL")
        #expect(try await client.request(.get, "\(api)/tracks/1001").response["urn"]?.string == "soundcloud:tracks:1001")
        let resolved = try await client.request(.get, "/resolve", parameters: [("url", "https://soundcloud.com/stub-artist")]).response
        #expect(resolved["username"]?.string == "stub-artist")
        let created = try await client.request(.post, "/me/connections", parameters: [
            ("service", "tumblr"), ("redirect_uri", "https://streamplay.example/connected")]).fullResponse
        #expect(created.status == 202 && created.json["authorize_url"]?.string != nil)
        let entries = try SoundCloudTesting.entries(after: mark, host: "api")
        #expect(entries.count == 5, "/me, /tracks, /resolve + its redirect, POST: \(entries.map { $0["path"] ?? "" })")
        #expect(entries.allSatisfy { $0["auth"] as? String == "OAuth" }, "\(entries.map { $0["auth"] ?? "" })")
        #expect(entries.last?["form"] as? [String: String] == ["service": "tumblr", "redirect_uri": "https://streamplay.example/connected"])
        // A full URL off the API's host never receives the token.
        let before = try ServiceStubs.logMark()
        let cdn = try ServiceStubs.value(.soundcloud, "CDN_URL")
        guard case .invalidRequest? = await Self.failure({ try await client.request(.get, "\(cdn)/media/1001").response }) else {
            Issue.record("a request to another host was made")
            return
        }
        #expect(try ServiceStubs.logMark() == before)
    }

    // MARK: Session

    @Test("an expired access token: 401, one refresh, the request replayed")
    func refreshOn401() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let first = try #require(await client.oauth.currentToken)
        try await ServiceStubs.expireTokens(.soundcloud)
        let mark = try ServiceStubs.logMark()
        _ = try await client.me()
        let entries = try ServiceStubs.log(after: mark).filter { $0["service"] as? String == "soundcloud" }
        #expect(entries.map { $0["status"] as? Int } == [401, 200, 200], "\(entries)")
        #expect(entries.first?["token_status"] as? String == "expired")
        #expect(entries[1]["grant_type"] as? String == "refresh_token")
        let second = try #require(await client.oauth.currentToken)
        #expect(second.refreshToken != first.refreshToken, "the rotated refresh token is kept")
    }

    @Test("a revoked refresh token (invalid_grant) ends the session and says so")
    func invalidGrantEndsSession() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let events = client.oauth.events
        try await ServiceStubs.revokeTokens(.soundcloud, kind: "all")
        guard case .oauth(.sessionExpired)? = await Self.failure({ try await client.me() }) else {
            Issue.record("expected the session to expire")
            return
        }
        #expect(!(await client.oauth.isAuthenticated))
        var iterator = events.makeAsyncIterator()
        var seen: [OAuth2Event] = []
        while let event = await iterator.next() {
            seen.append(event)
            if event == .authenticationReset { break }
        }
        #expect(seen.contains(.authenticationReset))
        guard case .oauth(.notAuthenticated)? = await Self.failure({ try await client.me() }) else {
            Issue.record("a reset session still made requests")
            return
        }
    }

    // MARK: Errors and retries

    @Test("error bodies are parsed: 404 not found, 422 with the problems by field")
    func typedErrorBodies() async throws {
        let client = try await SoundCloudTesting.signedIn()
        guard case .notFound(let body)? = await Self.failure({ try await client.track("999999") }) else {
            Issue.record("expected notFound")
            return
        }
        #expect(body.status == 404 && body.code == 404 && body.message == "Track not found")
        #expect(body.statusText == "404 - Not Found")
        let error = await Self.failure { try await client.createConnection(service: "bogus", redirectURI: "relative/path") }
        guard case .api(let invalid)? = error else {
            Issue.record("expected a 422, got \(String(describing: error))")
            return
        }
        #expect(invalid.status == 422 && invalid.statusText == "422 - Unprocessable Entity")
        #expect(Set(invalid.errors.compactMap(\.field)) == ["service", "redirect_uri"])
        #expect(error?.description.contains("service") == true)
    }

    @Test("HTTP 429 is retried after Retry-After; the stand-in's log shows both tries")
    func rateLimitRetried() async throws {
        let client = try await SoundCloudTesting.appClient()
        let track = SoundCloudTesting.syntheticTrack()
        let path = "/tracks/soundcloud:tracks:\(track)"
        try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: path, retryAfter: 1)
        let mark = try ServiceStubs.logMark()
        let started = ContinuousClock.now
        #expect(try await client.track(String(track)).urn == "soundcloud:tracks:\(track)")
        #expect(ContinuousClock.now - started >= .milliseconds(950), "Retry-After: 1 was honoured")
        let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
        #expect(tries.map { $0["status"] as? Int } == [429, 200])
        #expect(tries.first?["injected"] as? Bool == true)
    }

    @Test("HTTP 429 that persists: typed rateLimited with the reset time, after the allowed tries")
    func rateLimitGivesUp() async throws {
        let client = try SoundCloudTesting.client(retryPolicy: ServiceRetryPolicy(maximumRetries: 1))
        try await client.oauth.authenticateWithClientCredentials()
        let track = SoundCloudTesting.syntheticTrack()
        let path = "/tracks/soundcloud:tracks:\(track)"
        try await ServiceStubs.fail(.soundcloud, status: 429, count: 2, path: path, retryAfter: 1)
        let mark = try ServiceStubs.logMark()
        guard case .rateLimited(let resetTime, let retryAfter)? = await Self.failure({ try await client.track(String(track)) }) else {
            Issue.record("expected rateLimited")
            return
        }
        #expect(retryAfter == 1)
        let reset = try #require(resetTime, "reset_time of the 429 body")
        #expect(abs(reset.timeIntervalSinceNow) < 5)
        #expect(try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }.count == 2)
    }

    @Test("5xx is retried with backoff for reads; a POST's 500 is not repeated")
    func serverErrorsRetried() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let track = SoundCloudTesting.syntheticTrack()
        let path = "/tracks/soundcloud:tracks:\(track)"
        try await ServiceStubs.fail(.soundcloud, status: 500, count: 1, path: path)
        try await ServiceStubs.fail(.soundcloud, status: 503, count: 1, path: path, retryAfter: 0)
        let mark = try ServiceStubs.logMark()
        #expect(try await client.track(String(track)).title == "Synthetic Track \(track)")
        let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
        #expect(tries.map { $0["status"] as? Int } == [500, 503, 200])
        try await ServiceStubs.fail(.soundcloud, status: 500, count: 1, path: "/me/connections", method: "POST")
        let postMark = try ServiceStubs.logMark()
        let error = await Self.failure { try await client.createConnection(service: .tumblr, redirectURI: "https://streamplay.example/c") }
        guard case .api(let body)? = error else {
            Issue.record("expected the 500, got \(String(describing: error))")
            return
        }
        #expect(body.status == 500)
        #expect(try SoundCloudTesting.entries(after: postMark, host: "api").count == 1, "a POST is not retried on 500")
    }

    @Test("cancelling a request stops it, even while it waits to retry")
    func cancelRequest() async throws {
        let client = try await SoundCloudTesting.appClient()
        let track = SoundCloudTesting.syntheticTrack()
        let path = "/tracks/soundcloud:tracks:\(track)"
        try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: path, retryAfter: 1)
        let mark = try ServiceStubs.logMark()
        let started = ContinuousClock.now
        let request = client.request(.get, "/tracks/soundcloud:tracks:\(track)")
        try await Task.sleep(for: .milliseconds(300))
        request.cancel()
        #expect(request.isCancelled)
        guard case .cancelled? = await Self.failure({ try await request.response }) else {
            Issue.record("a cancelled request answered")
            return
        }
        #expect(ContinuousClock.now - started < .milliseconds(900), "the 1 s wait was cut short")
        try await Task.sleep(for: .milliseconds(1000))
        let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
        #expect(tries.count == 1, "no retry after the cancellation")
        // A task awaiting the answer and then cancelled cancels the request too.
        try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: path, retryAfter: 1)
        let second = client.request(.get, "/tracks/soundcloud:tracks:\(track)")
        let waiter = Task { await Self.failure { try await second.response } }
        try await Task.sleep(for: .milliseconds(200))
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
    }

    // MARK: Links and ids

    @Test("resolve: full-track links, user links and on.soundcloud.com short links")
    func resolveLinks() async throws {
        let client = try await SoundCloudTesting.appClient()
        let mark = try ServiceStubs.logMark()
        guard case .track(let track) = try await client.resolve("https://soundcloud.com/stub-artist/full-track") else {
            Issue.record("not a track")
            return
        }
        #expect(track.id == nil && track.title == "Full Track" && track.username == "stub-artist")
        #expect(track.urn == "soundcloud:tracks:1001" && track.durationMilliseconds == 30000 && track.access == "playable")
        #expect(track.permalinkURL == "https://soundcloud.com/stub-artist/full-track" && track.streamable)
        let entries = try SoundCloudTesting.entries(after: mark, host: "api")
        #expect(entries.map { $0["path"] as? String } == ["/resolve", "/tracks/soundcloud:tracks:1001"])
        #expect(entries.map { $0["status"] as? Int } == [302, 200])
        #expect(entries.allSatisfy { $0["auth"] as? String == "OAuth" }, "the redirect is followed with the header")
        guard case .user(let user) = try await client.resolve("https://soundcloud.com/stub-artist") else {
            Issue.record("not a user")
            return
        }
        #expect(user.id == nil && user.username == "stub-artist" && user.urn == "soundcloud:users:100002")
        guard case .track(let short) = try await client.resolve("https://on.soundcloud.com/stubAac1") else {
            Issue.record("the short link is not a track")
            return
        }
        #expect(short.urn == "soundcloud:tracks:1002" && short.title == "AAC Only")
        guard case .track(let byURN) = try await client.resolve("soundcloud:tracks:1003") else {
            Issue.record("the URN is not a track")
            return
        }
        #expect(byURN.isPreviewOnly)
        guard case .notFound? = await Self.failure({ try await client.resolve("https://soundcloud.com/nobody-here/nothing") }) else {
            Issue.record("an unknown link resolved")
            return
        }
    }

    @Test("tracks by URN or numeric id are the same; malformed ids are refused before any request")
    func urnAndNumericIDs() async throws {
        #expect(SoundCloudURN("soundcloud:tracks:123") == SoundCloudURN(kind: "tracks", id: "123"))
        #expect(SoundCloudURN.track("123")?.description == "soundcloud:tracks:123")
        #expect(SoundCloudURN.track("soundcloud:users:5") == nil)
        #expect(SoundCloudURN("soundcloud:tracks:12a") == nil && SoundCloudURN("spotify:track:1") == nil)
        let client = try await SoundCloudTesting.appClient()
        let mark = try ServiceStubs.logMark()
        let numeric = try await client.track("1001")
        let byURN = try await client.track("soundcloud:tracks:1001")
        #expect(numeric == byURN)
        let paths = try SoundCloudTesting.entries(after: mark, host: "api").map { $0["path"] as? String }
        #expect(paths == ["/tracks/soundcloud:tracks:1001", "/tracks/soundcloud:tracks:1001"])
        #expect(try await client.user("soundcloud:users:100002").username == "stub-artist")
        #expect(try await client.user("100002").username == "stub-artist")
        let before = try ServiceStubs.logMark()
        for bad in ["../me", "1001/streams", "soundcloud:users:1", ""] {
            guard case .invalidRequest? = await Self.failure({ try await client.track(bad) }) else {
                Issue.record("\(bad) was accepted")
                continue
            }
        }
        #expect(try ServiceStubs.logMark() == before)
    }

    // MARK: Streams

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
        guard case .previewOnly(let title)? = await Self.failure({ try await client.stream(forTrack: "1003") }) else {
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
        guard case .previewOnly(let title)? = await Self.failure({ try await client.stream(forTrack: "1004") }) else {
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
        guard case .previewOnly(let title)? = await Self.failure({ try await client.stream(forTrack: "1006") }) else {
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
            guard case .drmProtected(let title, let renditions)? = await Self.failure({
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
        guard case .drmProtected(let title, let renditions)? = await Self.failure({ try await client.stream(forTrack: "1007") }) else {
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

    // MARK: Upload and share

    @Test("upload with progress: title, machine tags, posts to chosen connections, e-mails for private tracks")
    func uploadAndShare() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let connections = try await client.connections()
        let twitter = try #require(connections.first { $0.service == .twitter })
        let foursquare = try #require(connections.first { $0.service == .foursquare })
        let file = try SoundCloudTesting.audioFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        let title = "Take \(UUID().uuidString.prefix(6))"
        var upload = SoundCloudUpload(asset: .file(path: file, filename: "take.mp3"), title: title)
        upload.tags = [.plain("live"), .plain("hip hop"), .foursquareVenue("4b8c2c1cf964a520"),
                       .machine(namespace: "streamplay", key: "take", value: "first try")]
            + SoundCloudTag.geo(latitude: 52.52, longitude: 13.405)
        upload.sharingTargets = .connections([twitter.id, foursquare.id])
        upload.description = "A test upload"
        upload.genre = "Test"
        upload.trackType = "recording"
        upload.license = "cc-by"
        upload.downloadable = true
        let progress = Mutex<[Int64]>([])
        let track = try await client.upload(upload) { sent, total in progress.withEngineLock { $0 += [sent, total] } }
        #expect(track.title == title && track.state == "processing" && track.sharing == "public")
        let last = progress.withEngineLock { Array($0.suffix(2)) }
        #expect(last.count == 2 && last[0] == last[1] && last[1] >= Int64(size), "progress reached the whole body: \(last)")
        let record = try await SoundCloudTesting.upload(titled: title)
        #expect((record["errors"] as? [Any])?.isEmpty == true, "\(record["errors"] ?? "")")
        #expect(record["track_id"].map { "soundcloud:tracks:\($0)" } == track.urn && record["sharing"] as? String == "public")
        let fields = try #require(record["fields"] as? [String: Any])
        #expect(fields["track[title]"] as? String == title && fields["track[type]"] as? String == "recording")
        #expect(fields["track[license]"] as? String == "cc-by" && fields["track[downloadable]"] as? String == "true")
        let asset = try #require((record["files"] as? [String: Any])?["track[asset_data]"] as? [String: Any])
        #expect(asset["filename"] as? String == "take.mp3" && asset["size"] as? Int == size)
        #expect(Set(record["tags"] as? [String] ?? []) == ["live", "hip hop"])
        let machine = (record["machine_tags"] as? [[String: String]] ?? []).map { "\($0["namespace"]!):\($0["key"]!)=\($0["value"]!)" }
        #expect(Set(machine) == ["geo:lat=52.52", "geo:lon=13.405", "foursquare:venue=4b8c2c1cf964a520", "streamplay:take=first try"])
        let postTo = try #require(record["post_to"] as? [String: Any])
        #expect(postTo["mode"] as? String == "ids" && Set(postTo["ids"] as? [Int] ?? []) == [twitter.id, foursquare.id])
        #expect(try await client.track(track.urn).state == "finished")

        // Private, shared by e-mail.
        let privateTitle = "Private \(UUID().uuidString.prefix(6))"
        let emails = ["ana@example.com", "bo@example.org"]
        _ = try await client.upload(SoundCloudUpload(asset: .data(Array(try Data(contentsOf: URL(fileURLWithPath: file))), filename: "p.mp3"),
                                                     title: privateTitle, sharing: .private, sharedToEmails: emails))
        let privateRecord = try await SoundCloudTesting.upload(titled: privateTitle)
        #expect(privateRecord["sharing"] as? String == "private" && privateRecord["shared_to_emails"] as? [String] == emails)
        #expect((privateRecord["errors"] as? [Any])?.isEmpty == true, "\(privateRecord["errors"] ?? "")")

        // Public, posted nowhere; and public with the website's defaults.
        let quietTitle = "Quiet \(UUID().uuidString.prefix(6))"
        _ = try await client.upload(SoundCloudUpload(asset: .file(path: file), title: quietTitle, sharingTargets: .nobody))
        #expect((try await SoundCloudTesting.upload(titled: quietTitle)["post_to"] as? [String: Any])?["mode"] as? String == "none")
        let defaultTitle = "Default \(UUID().uuidString.prefix(6))"
        _ = try await client.upload(SoundCloudUpload(asset: .file(path: file), title: defaultTitle))
        let defaults = try #require(try await SoundCloudTesting.upload(titled: defaultTitle)["post_to"] as? [String: Any])
        #expect(defaults["mode"] as? String == "default")
        #expect(Set(defaults["services"] as? [String] ?? []) == ["twitter", "facebook_profile"])
    }

    @Test("upload validation: SoundCloud's 422 is typed with the fields; impossible sharing is refused locally")
    func uploadValidation() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let file = try SoundCloudTesting.audioFile(size: 1024)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let error = await Self.failure {
            try await client.upload(SoundCloudUpload(asset: .file(path: file), title: "  ", tags: [.latitude(200)]))
        }
        guard case .api(let body)? = error else {
            Issue.record("expected a 422, got \(String(describing: error))")
            return
        }
        #expect(body.status == 422 && body.code == 422)
        #expect(Set(body.errors.compactMap(\.field)).isSuperset(of: ["track[title]", "track[tag_list]"]), "\(body.errors)")
        #expect(error?.description.contains("track[title]") == true)
        let mark = try ServiceStubs.logMark()
        let publicWithEmails = SoundCloudUpload(asset: .file(path: file), title: "x", sharedToEmails: ["a@example.com"])
        guard case .invalidRequest? = await Self.failure({ try await client.upload(publicWithEmails) }) else {
            Issue.record("e-mails on a public track were sent")
            return
        }
        let privateToConnections = SoundCloudUpload(asset: .file(path: file), title: "x", sharing: .private, sharingTargets: .connections([1]))
        guard case .invalidRequest? = await Self.failure({ try await client.upload(privateToConnections) }) else {
            Issue.record("connections on a private track were sent")
            return
        }
        #expect(try ServiceStubs.logMark() == mark)
    }

    @Test("connections: listed, created, and listed once the user opened the authorize URL")
    func connections() async throws {
        let client = try await SoundCloudTesting.signedIn()
        let initial = try await client.connections()
        #expect(initial.map(\.service) == [.twitter, .facebookProfile, .foursquare, .tumblr])
        #expect(initial.map(\.postPublish) == [true, true, false, false])
        let redirect = "https://streamplay.example/connected"
        let url = try await client.createConnection(service: .myspace, redirectURI: redirect, display: "popup")
        #expect(url.hasPrefix(try ServiceStubs.value(.soundcloud, "AUTH_URL").replacingOccurrences(of: "/authorize", with: "")))
        let opened = try await CurlHTTPClient().send(HTTPRequest(url: url))
        #expect(opened.status == 302)
        let location = try #require(opened.headers["Location"])
        #expect(location.hasPrefix(redirect + "?") && location.contains("service=myspace"))
        let id = try #require(Self.queryField("connection_id", of: location))
        let after = try await client.connections()
        #expect(after.count == 5)
        #expect(after.first { $0.service == .myspace }.map { String($0.id) } == id)
    }

    // MARK: Secrets

    @Test("no token, secret, code or CDN signature in logs or error descriptions")
    func redaction() async throws {
        let start = CapturingLogHandler.lines.withEngineLock { $0.count }
        let logger = CapturingLogHandler.logger()
        let listener = try LoopbackRedirectListener()
        let client = try SoundCloudTesting.client(redirectURI: listener.redirectURI, logger: logger)
        let request = await client.oauth.makeAuthorizationRequest()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", ServiceStubs.uniqueUser("sc-redact"))])
        let redirectURL = try await redirect
        try await client.oauth.completeAuthorization(request, redirect: redirectURL)
        let code = try #require(Self.queryField("code", of: redirectURL))
        var secrets = [code, request.pkce.verifier, try ServiceStubs.value(.soundcloud, "CLIENT_SECRET")]
        let first = try #require(await client.oauth.currentToken)
        secrets += [first.accessToken, try #require(first.refreshToken)]
        _ = try await client.me()
        let stream = try await client.stream(forTrack: "1001")
        let signature = try #require(Self.queryField("Signature", of: stream.url))
        secrets.append(signature)
        try await ServiceStubs.expireTokens(.soundcloud)
        _ = try await client.me()
        let second = try #require(await client.oauth.currentToken)
        secrets += [second.accessToken, try #require(second.refreshToken)]
        let track = SoundCloudTesting.syntheticTrack()
        try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: "/tracks/soundcloud:tracks:\(track)", retryAfter: 0)
        _ = try await client.stream(forTrack: String(track))
        var descriptions = [stream.description, String(describing: second), client.configuration.description]
        for error in [await Self.failure({ try await client.track("999999") }),
                      await Self.failure({ try await client.request(.get, stream.url).response }),
                      await Self.failure({ try await client.track("999998") })] {
            descriptions.append(String(describing: try #require(error)))
        }
        try await ServiceStubs.revokeTokens(.soundcloud, kind: "all")
        descriptions.append(String(describing: try #require(await Self.failure { try await client.me() })))
        let lines = CapturingLogHandler.lines.withEngineLock { Array($0.dropFirst(start)) }
        #expect(lines.contains { $0.contains("retrying") }, "the retry was logged")
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) }, "a secret reached the log")
            #expect(!descriptions.contains { $0.contains(secret) }, "a secret reached an error or description")
        }
    }

    // MARK: Hostile numbers, origins and descriptions

    @Test("server numbers that would trap are refused or clamped: Retry-After 1e30, huge years, absurd Expires")
    func hostileNumbers() {
        for seconds in [1e30, .infinity, Double(Int.max)] {
            let text = SoundCloudError.rateLimited(resetTime: nil, retryAfter: seconds).description
            #expect(text.contains("retry after \(Int(ServiceRetryPolicy.longestSleep)) s"), "\(text)")
        }
        #expect(SoundCloudError.rateLimited(resetTime: nil, retryAfter: 1.2).description.hasSuffix("retry after 2 s"))
        #expect(SoundCloudTimestamp.parse("2024/02/29 12:34:56 +0000") == Date(timeIntervalSince1970: 1_709_210_096))
        #expect(SoundCloudTimestamp.parse("2024-02-29T12:34:56Z") == Date(timeIntervalSince1970: 1_709_210_096))
        for text in ["9223372036854775807/01/01 00:00:00 +0000", "99999999999999/12/31 23:59:59 +0000",
                     "-9223372036854775807/01/01 00:00:00 +0000", "10000/01/01 00:00:00 +0000", "1969/12/31 23:59:59 +0000"] {
            #expect(SoundCloudTimestamp.parse(text) == nil, "\(text)")
        }
        let now = Date().timeIntervalSince1970
        let soon = SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(Int(now) + 300)&Signature=x")
        #expect(soon.map { abs($0.timeIntervalSince1970 - (now + 300)) < 2 } == true)
        #expect(SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(Int(now) - 60)") != nil, "an expired URL still says when")
        for expires in ["1e30", "inf", "-inf", "nan", "9223372036854775807", "\(Int(now) + 20 * 365 * 86400)", "-1", "soon"] {
            #expect(SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(expires)") == nil, "\(expires)")
        }
    }

    @Test("origins: default ports are the same origin, protocol-relative Locations take the base's scheme")
    func origins() throws {
        #expect(URLOrigin("https://API.example.com:443/tracks") == URLOrigin("https://api.example.com/me"))
        #expect(URLOrigin("http://api.example.com:80") == URLOrigin("http://api.example.com/"))
        #expect(URLOrigin("https://api.example.com:8443/x") != URLOrigin("https://api.example.com/x"))
        #expect(URLOrigin("http://api.example.com/x") != URLOrigin("https://api.example.com/x"))
        #expect(URLOrigin("https://[::1]:443/x")?.description == "https://[::1]")
        for bad in ["https://user@api.example.com/", "https://api.example.com:99999/", "https://api.example.com:x/", "/tracks", "//api.example.com/x"] {
            #expect(URLOrigin(bad) == nil, "\(bad)")
        }
        #expect(SoundCloudClient.absolute("//cdn.example.com/a.mp3?Signature=s", base: "https://api.example.com/streams/1")
            == "https://cdn.example.com/a.mp3?Signature=s")
        #expect(SoundCloudClient.absolute("/tracks/2", base: "https://api.example.com:443/tracks/1") == "https://api.example.com/tracks/2")
        #expect(SoundCloudClient.absolute("/go?to=https://elsewhere.example/", base: "http://api.example.com:8080/x")
            == "http://api.example.com:8080/go?to=https://elsewhere.example/")
        let client = SoundCloudClient(configuration: ServiceConfiguration.defaults(for: .soundcloud))
        #expect(client.isOnAPIHost("https://api.soundcloud.com:443/tracks/1"))
        #expect(client.isOnAPIHost("HTTPS://API.SOUNDCLOUD.COM/me"))
        #expect(!client.isOnAPIHost("https://api.soundcloud.com.evil.example/me"))
        #expect(!client.isOnAPIHost("https://api.soundcloud.com@evil.example/me"))
        #expect(!client.isOnAPIHost("//api.soundcloud.com/me"))
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

    @Test("a response's description, debug description and dump show no header or body (no CDN signature)")
    func responseDescription() async throws {
        let client = try await SoundCloudTesting.appClient()
        let rendition = try #require(try await client.streams(forTrack: "1001").renditions["http_mp3_128"])
        let response = try await client.request(.get, rendition).fullResponse
        #expect(response.status == 302)
        let location = try #require(response.headers["Location"])
        let signature = try #require(Self.queryField("Signature", of: location))
        var dumped = ""
        dump(response, to: &dumped)
        for text in [String(describing: response), String(reflecting: response), dumped, "\(response)"] {
            #expect(!text.contains(signature), "\(text)")
            #expect(!text.contains("Signature") && !text.contains("Location"), "\(text)")
        }
        #expect(String(describing: response).contains("HTTP 302"))
        #expect(String(describing: response).contains("\(response.body.count) bytes"))
    }
}
