import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// The Spotify client against the Spotify stand-in (scripts/service-stubs.py): sign-in in its
/// three forms, sessions, the Web API, retries and the Connect player.
@Suite("Spotify client", .serialized, .needsTestServers)
struct SpotifyTests {
    // MARK: Sign-in

    @Test("public PKCE sign-in through a loopback listener, show_dialog on the authorize URL")
    func publicSignIn() async throws {
        let mark = try ServiceStubs.logMark()
        let user = ServiceStubs.uniqueUser("sp-public")
        let client = try await SpotifyTesting.signedIn(.publicClient, user: user, showDialog: true)
        let authorize = try #require(try SpotifyTesting.log(after: mark, host: "accounts").first { $0["path"] as? String == "/authorize" })
        let query = try #require(authorize["query"] as? [String: Any])
        #expect(query["show_dialog"] as? String == "true")
        #expect(query["code_challenge_method"] as? String == "S256")
        #expect((query["state"] as? String)?.isEmpty == false)
        #expect((query["scope"] as? String)?.contains("user-modify-playback-state") == true)
        let exchange = try #require(try SpotifyTesting.log(after: mark, host: "accounts").first { $0["path"] as? String == "/api/token" })
        #expect(exchange["client_auth"] as? String == "public")
        #expect(exchange["grant_type"] as? String == "authorization_code")
        #expect(exchange["status"] as? Int == 200)
        #expect(exchange["auth"] is NSNull, "a public client sends no Authorization header")
        let session = try #require(await client.session())
        #expect(session.canRenew && session.isValid)
        let me = try await client.me()
        #expect(me.displayName == user)
        #expect(me.id == user.filter { $0.isLetter || $0.isNumber })
        #expect(me.email == "\(user)@example.com" && me.product == "premium" && me.country == "DE" && me.isPremium == true)
        let call = try #require(try SpotifyTesting.log(after: mark, host: "api").last)
        #expect(call["auth"] as? String == "Bearer" && call["token_status"] as? String == "valid")
    }

    @Test("without show_dialog the authorize URL does not carry it; scopes limit what /me shows")
    func scopesAndNoDialog() async throws {
        let mark = try ServiceStubs.logMark()
        let client = try await SpotifyTesting.signedIn(scopes: ["user-read-playback-state"])
        let authorize = try #require(try SpotifyTesting.log(after: mark, host: "accounts").first { $0["path"] as? String == "/authorize" })
        let query = try #require(authorize["query"] as? [String: Any])
        #expect(query["show_dialog"] == nil)
        #expect(query["scope"] as? String == "user-read-playback-state")
        let me = try await client.me()
        #expect(me.email == nil && me.product == nil && me.country == nil)
    }

    @Test("confidential sign-in authenticates with HTTP Basic")
    func confidentialSignIn() async throws {
        let mark = try ServiceStubs.logMark()
        let user = ServiceStubs.uniqueUser("sp-conf")
        let client = try await SpotifyTesting.signedIn(.confidential, user: user)
        let exchange = try #require(try SpotifyTesting.log(after: mark, host: "accounts").first { $0["path"] as? String == "/api/token" })
        #expect(exchange["client_auth"] as? String == "basic")
        #expect(exchange["auth"] as? String == "Basic")
        #expect(try await client.me().displayName == user)
        #expect(!(try ServiceStubs.logText(after: mark).contains("sp-test-secret")))
    }

    @Test("error=access_denied is reported as cancelled by the user; no token is requested")
    func cancelledByUser() async throws {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: listener.redirectURI))
        let request = try await client.makeAuthorizationRequest()
        let mark = try ServiceStubs.logMark()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_deny", "access_denied")])
        let url = try await redirect
        #expect(url.contains("error=access_denied"))
        await #expect(throws: SpotifyError.cancelledByUser) { try await client.completeAuthorization(request, redirect: url) }
        #expect(try SpotifyTesting.log(after: mark, host: "accounts").allSatisfy { $0["path"] as? String != "/api/token" })
        #expect(!(await client.isSignedIn))
    }

    @Test("a localhost redirect URI is refused before the browser is sent, as Spotify refuses it")
    func localhostRefused() async throws {
        for uri in ["http://localhost:8080/callback", "http://LOCALHOST/callback", "https://localhost/cb",
                    "http://example.com/callback", "http://127.0.0.1:8080/cb#frag"] {
            let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: uri))
            let error = await SpotifyTesting.error { try await client.makeAuthorizationRequest() }
            guard case .invalidRedirectURI(_, let reason)? = error else { Issue.record("\(uri): \(String(describing: error))"); continue }
            if uri.lowercased().contains("localhost") { #expect(reason.contains("127.0.0.1"), "\(reason)") }
        }
        let none = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: nil))
        await #expect(throws: SpotifyError.self) { try await none.makeAuthorizationRequest() }
        for uri in ["http://127.0.0.1:43210/callback", "http://[::1]:8080/callback", "https://app.example/cb", "x-app://callback"] {
            let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: uri))
            _ = try await client.makeAuthorizationRequest()
        }
        // The stand-in, like Spotify, refuses the localhost form outright.
        let configuration = try SpotifyTesting.configuration(.publicClient, redirectURI: "http://localhost:8080/callback")
        let forced = AuthorizationRequest(configuration: SpotifyClient.oauthConfiguration(configuration))
        let answer = try await CurlHTTPClient().send(HTTPRequest(url: forced.url))
        #expect(answer.status == 400 && answer.text.contains("Insecure redirect URI"))
    }

    @Test("token swap service: the code goes to the swap URL, refreshes to the refresh URL, no client credentials")
    func swapService() async throws {
        let mark = try ServiceStubs.logMark()
        let user = ServiceStubs.uniqueUser("sp-swap")
        let client = try await SpotifyTesting.signedIn(.swapService, user: user)
        #expect(client.usesTokenSwapService)
        let swap = try SpotifyTesting.log(after: mark, host: "swap")
        let exchange = try #require(swap.first)
        #expect(exchange["path"] as? String == "/swap" && exchange["status"] as? Int == 200)
        #expect(exchange["client_auth"] as? String == "swap-service")
        #expect(exchange["auth"] is NSNull)
        let form = try #require(exchange["form"] as? [String: Any])
        #expect(form["client_id"] == nil && form["client_secret"] == nil, "\(form)")
        #expect(try SpotifyTesting.log(after: mark, host: "accounts").allSatisfy { $0["path"] as? String != "/api/token" },
                "the client never calls Spotify's token endpoint itself")
        let first = try #require(await client.session()?.token)
        #expect(try await client.me().displayName == user)

        // The access token expires: the refresh service renews it, the call is replayed.
        #expect(try await ServiceStubs.expireTokens(.spotify, user: user) >= 1)
        let renewMark = try ServiceStubs.logMark()
        #expect(try await client.me().displayName == user)
        let after = try SpotifyTesting.log(after: renewMark)
        #expect(after.map { "\($0["host"] ?? "") \($0["path"] ?? "") \($0["status"] ?? "")" }
                == ["api /v1/me 401", "swap /refresh 200", "api /v1/me 200"], "\(after)")
        let renewed = try #require(await client.session()?.token)
        #expect(renewed.accessToken != first.accessToken)
        #expect(renewed.refreshToken == first.refreshToken, "the swap service's refresh token is kept")
        #expect(try SpotifyTesting.log(after: mark, host: "accounts").allSatisfy { $0["path"] as? String == "/authorize" })
    }

    @Test("a PKCE refresh rotates the refresh token; the old one is then refused")
    func refreshRotation() async throws {
        let client = try await SpotifyTesting.signedIn()
        let first = try #require(await client.session()?.token)
        let second = try await client.renewSession().token
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
        let configuration = try SpotifyTesting.configuration(.publicClient, redirectURI: nil)
        let reuse = try await CurlHTTPClient().send(HTTPRequest(method: .post, url: configuration.tokenURL, body: .form([
            ("grant_type", "refresh_token"), ("refresh_token", try #require(first.refreshToken)), ("client_id", configuration.clientID),
        ])))
        #expect(reuse.status == 400 && reuse.text.contains("invalid_grant"))
        _ = try await client.me()
        _ = try await client.renewSession()  // the newest still works
    }

    @Test("401 'The access token expired' renews the session and replays the call")
    func expiredTokenReplayed() async throws {
        let user = ServiceStubs.uniqueUser("sp-expired")
        let client = try await SpotifyTesting.signedIn(user: user)
        #expect(try await ServiceStubs.expireTokens(.spotify, user: user) >= 1)
        let mark = try ServiceStubs.logMark()
        _ = try await client.me()
        let entries = try SpotifyTesting.log(after: mark)
        #expect(entries.map { "\($0["path"] ?? "") \($0["status"] ?? "")" } == ["/v1/me 401", "/api/token 200", "/v1/me 200"], "\(entries)")
        #expect(entries.first?["token_status"] as? String == "expired")
        #expect(entries[safe: 1]?["grant_type"] as? String == "refresh_token")
        #expect(entries[safe: 1]?["client_auth"] as? String == "public")
    }

    @Test("a revoked refresh token (invalid_grant) ends the session and removes the stored token")
    func revokedRefreshEndsSession() async throws {
        let store = InMemoryTokenStore()
        let user = ServiceStubs.uniqueUser("sp-revoked")
        let client = try await SpotifyTesting.signedIn(user: user, store: store)
        #expect(try store.load(account: "spotify") != nil)
        let events = client.oauth.events
        #expect(try await ServiceStubs.revokeTokens(.spotify, kind: "all", user: user) >= 2)
        let error = await SpotifyTesting.error { try await client.me() }
        guard case .sessionExpired(let description)? = error else { Issue.record("expected sessionExpired, got \(String(describing: error))"); return }
        #expect(description == "Refresh token revoked")
        #expect(!(await client.isSignedIn))
        #expect(try store.load(account: "spotify") == nil)
        var iterator = events.makeAsyncIterator()
        _ = await iterator.next()  // the failed refresh
        #expect(await iterator.next() == .authenticationReset)
        await #expect(throws: SpotifyError.notSignedIn) { try await client.me() }
    }

    @Test("no token, code or secret reaches the client's log or its errors")
    func redaction() async throws {
        let logMark = CapturingLogHandler.lines.withEngineLock { $0.count }
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: listener.redirectURI),
                                   logger: CapturingLogHandler.logger())
        let request = try await client.makeAuthorizationRequest()
        async let redirect = listener.waitForRedirect(timeout: 20)
        let user = ServiceStubs.uniqueUser("sp-redact")
        try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
        let url = try await redirect
        let code = try #require(FormEncoding.decode(url.drop { $0 != "?" }.dropFirst()).first { $0.0 == "code" }?.1)
        let first = try await client.completeAuthorization(request, redirect: url).token
        #expect(try await ServiceStubs.expireTokens(.spotify, user: user) >= 1)
        try await ServiceStubs.fail(.spotify, status: 429, path: "/v1/me", retryAfter: 0)
        _ = try await client.me()
        let second = try #require(await client.session()?.token)
        #expect(try await ServiceStubs.revokeTokens(.spotify, kind: "all", user: user) >= 2)
        let error = try #require(await SpotifyTesting.error { try await client.me() })
        let secrets = [code, first.accessToken, second.accessToken, try #require(first.refreshToken), "sp-test-secret"]
        let lines = CapturingLogHandler.lines.withEngineLock { Array($0.dropFirst(logMark)) }
        #expect(lines.contains { $0.contains("retrying") } && lines.contains { $0.contains("session reset") }, "\(lines)")
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) }, "a secret in the log")
            #expect(!error.description.contains(secret) && !"\(error)".contains(secret))
            #expect(!client.configuration.description.contains(secret))
        }
    }

    // MARK: Sessions

    @Test("a session string round-trips encrypted; altered text or another key is refused; logout")
    func sessionString() async throws {
        let store = InMemoryTokenStore()
        let client = try await SpotifyTesting.signedIn(store: store)
        let key = SpotifySession.makeKey()
        let text = try await client.sessionString(using: key)
        let token = try #require(await client.session()?.token)
        #expect(text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        let refreshToken = try #require(token.refreshToken)
        #expect(!text.contains(token.accessToken) && !text.contains(refreshToken))
        #expect(!(await client.session()?.description ?? "").contains(token.accessToken))

        let other = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: nil), account: "other")
        let restored = try await other.restoreSession(from: text, using: key)
        #expect(restored.token == token)
        #expect(try await other.me().id == (try await client.me().id))

        var altered = Array(text)
        let middle = altered.count / 2
        altered[middle] = altered[middle] == "A" ? "B" : "A"
        let fresh = SpotifyClient(configuration: try SpotifyTesting.configuration(.publicClient, redirectURI: nil), account: "fresh")
        for (bad, key) in [(String(altered), key), (text, SpotifySession.makeKey()), ("not base64!", key), ("", key),
                           (String(text.prefix(10)), key)] {
            let error = await SpotifyTesting.error { try await fresh.restoreSession(from: bad, using: key) }
            guard case .invalidSession? = error else { Issue.record("expected invalidSession, got \(String(describing: error))"); continue }
        }
        #expect(!(await fresh.isSignedIn), "a refused string leaves the client signed out")

        await client.logout()
        #expect(!(await client.isSignedIn))
        #expect(try store.load(account: "spotify") == nil)
        await #expect(throws: SpotifyError.notSignedIn) { try await client.me() }
        await #expect(throws: SpotifyError.notSignedIn) { try await client.sessionString(using: key) }
    }

    // MARK: Web API

    @Test("track() with and without a preview, by URI, link and id; client credentials are enough")
    func tracks() async throws {
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: nil))
        try await client.oauth.authenticateWithClientCredentials()
        let preview = try await client.track("spotify:track:\(SpotifyTesting.previewTrack)")
        #expect(preview.id == SpotifyTesting.previewTrack && preview.name == "Preview Track" && preview.uri == "spotify:track:\(SpotifyTesting.previewTrack)")
        #expect(preview.durationMilliseconds == 30000 && preview.duration == 30)
        #expect(preview.previewURL?.hasPrefix(try ServiceStubs.value(.spotify, "CDN_URL")) == true)
        #expect(!preview.artistNames.isEmpty && preview.albumName?.isEmpty == false)
        let same = try await client.track("https://open.spotify.com/track/\(SpotifyTesting.previewTrack)?si=0123abcd")
        #expect(same == preview)

        let plain = try await client.track(SpotifyTesting.noPreviewTrack)
        #expect(plain.name == "No Preview Track" && plain.durationMilliseconds == 45000 && plain.previewURL == nil)
        await #expect(throws: SpotifyError.noPreview(trackID: SpotifyTesting.noPreviewTrack, name: "No Preview Track")) {
            try await client.previewStream(forTrack: SpotifyTesting.noPreviewTrack)
        }
        let unknown = await SpotifyTesting.error { try await client.track("0000000000000000000000") }
        guard case .api(404, _, _)? = unknown else { Issue.record("expected a 404 API error, got \(String(describing: unknown))"); return }
    }

    @Test("track ids: URIs, open.spotify.com links and bare ids parse; anything else is a typed error before any request")
    func trackIDs() async throws {
        let id = SpotifyTesting.previewTrack
        for text in ["spotify:track:\(id)", "https://open.spotify.com/track/\(id)?si=abc123", "https://open.spotify.com/intl-de/track/\(id)",
                     id, " \(id)\n", "http://play.spotify.com/track/\(id)#x"] {
            #expect(SpotifyTrackID(text)?.rawValue == id, "\(text)")
        }
        #expect(SpotifyTrackID(id)?.uri == "spotify:track:\(id)")
        let invalid = ["spotify:album:\(id)", "https://open.spotify.com/album/\(id)", "https://example.com/track/\(id)",
                       String(id.dropLast()), id + "x", "0StrmPly-reviewTrack01", "", "spotify:track:", "https://open.spotify.com/track/"]
        for text in invalid { #expect(SpotifyTrackID(text) == nil, "\(text)") }
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: nil))
        try await client.oauth.authenticateWithClientCredentials()
        let mark = try ServiceStubs.logMark()
        await #expect(throws: SpotifyError.invalidTrackID("spotify:album:\(id)")) { try await client.track("spotify:album:\(id)") }
        await #expect(throws: SpotifyError.invalidTrackID("abc")) { try await client.previewStream(forTrack: "abc") }
        #expect(try SpotifyTesting.log(after: mark).isEmpty, "no request for an invalid id")
    }

    @Test("429 is retried after its Retry-After; 5xx with backoff; a long Retry-After is not slept")
    func retries() async throws {
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: nil))
        try await client.oauth.authenticateWithClientCredentials()
        try await ServiceStubs.fail(.spotify, status: 429, path: "/v1/tracks", retryAfter: 1)
        var mark = try ServiceStubs.logMark()
        _ = try await client.track(SpotifyTesting.previewTrack)
        var entries = try SpotifyTesting.log(after: mark, host: "api")
        #expect(entries.map { $0["status"] as? Int } == [429, 200])
        if entries.count == 2, let first = entries[0]["time"] as? Double, let second = entries[1]["time"] as? Double {
            #expect(second - first >= 0.95, "waited \(second - first) s")
        }

        try await ServiceStubs.fail(.spotify, status: 500, count: 2, path: "/v1/tracks")
        mark = try ServiceStubs.logMark()
        _ = try await client.track(SpotifyTesting.previewTrack)
        entries = try SpotifyTesting.log(after: mark, host: "api")
        #expect(entries.map { $0["status"] as? Int } == [500, 500, 200])

        // Retries run out: the last answer's error object, after exactly maximumRetries + 1 tries.
        let impatient = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: nil),
                                      retryPolicy: ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0.05))
        try await impatient.oauth.authenticateWithClientCredentials()
        try await ServiceStubs.fail(.spotify, status: 502, count: 3, path: "/v1/tracks")
        mark = try ServiceStubs.logMark()
        let exhausted = await SpotifyTesting.error { try await impatient.track(SpotifyTesting.previewTrack) }
        #expect(exhausted == .api(status: 502, message: "Bad Gateway", reason: nil), "\(String(describing: exhausted))")
        #expect(try SpotifyTesting.log(after: mark, host: "api").map { $0["status"] as? Int } == [502, 502, 502])

        try await ServiceStubs.fail(.spotify, status: 429, path: "/v1/tracks", retryAfter: 120)
        mark = try ServiceStubs.logMark()
        let started = ContinuousClock.now
        await #expect(throws: SpotifyError.rateLimited(retryAfter: 120)) { try await client.track(SpotifyTesting.previewTrack) }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try SpotifyTesting.log(after: mark, host: "api").count == 1)
    }

    @Test("the preview URL is an MP3 that CurlHTTPClient fetches without an Authorization header")
    func previewAudio() async throws {
        let client = try await SpotifyTesting.signedIn()
        let preview = try await client.previewStream(forTrack: "spotify:track:\(SpotifyTesting.previewTrack)")
        #expect(preview.title == "Preview Track" && preview.trackID == SpotifyTesting.previewTrack && preview.trackDuration == 30)
        let mark = try ServiceStubs.logMark()
        let answer = try await CurlHTTPClient().send(HTTPRequest(url: preview.url))
        #expect(answer.status == 200 && answer.headers["Content-Type"]?.hasPrefix("audio/mpeg") == true)
        let head = Array(answer.body.prefix(3))
        #expect(head == Array("ID3".utf8) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0), "\(head)")
        let fetch = try #require(try SpotifyTesting.log(after: mark, host: "cdn").first)
        #expect(fetch["auth"] is NSNull)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
