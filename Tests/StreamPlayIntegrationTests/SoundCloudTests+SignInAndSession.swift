import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// Signing in (PKCE through the loopback listener, client credentials) and keeping the session:
    /// the refresh on 401, and the end of the session when the refresh token is revoked.
    @Suite("SoundCloud sign-in and session")
    struct SignInAndSession {
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
            guard case .userSignInRequired(let body)? = await SoundCloudTesting.failure({ try await client.me() }) else {
                Issue.record("a client-credentials token on /me was not refused as needing a user")
                return
            }
            #expect(body.status == 401 && body.code == 401)
            let calls = try ServiceStubs.log(after: meMark).filter { $0["service"] as? String == "soundcloud" }
            #expect(calls.count == 1, "one /me, no token renewal and no replay: \(calls.map { $0["path"] ?? "" })")
            #expect(calls.first?["status"] as? Int == 401 && calls.first?["token_status"] as? String == "app_token_on_user_endpoint")
        }

        @Test("an expired access token: 401, one refresh, the request replayed")
        func refreshOn401() async throws {
            let user = ServiceStubs.uniqueUser("sc-refresh")
            let client = try await SoundCloudTesting.signedIn(as: user)
            let first = try #require(await client.oauth.currentToken)
            #expect(try await ServiceStubs.expireTokens(.soundcloud, user: user) >= 1, "the user's access token")
            let mark = try ServiceStubs.logMark()
            _ = try await client.me()
            // Other suites use the SoundCloud stand-in at the same time: this client's calls are
            // told apart by its user, which the refused call (an expired token names nobody)
            // does not carry.
            let entries = try ServiceStubs.log(after: mark).filter { $0["service"] as? String == "soundcloud" }
            let refused = entries.filter { $0["path"] as? String == "/me" && $0["user"] == nil }
            #expect(refused.contains { $0["status"] as? Int == 401 && $0["token_status"] as? String == "expired" }, "\(entries)")
            let mine = entries.filter { $0["user"] as? String == user }
            #expect(mine.map { $0["status"] as? Int } == [200, 200], "\(entries)")
            #expect(mine.first?["grant_type"] as? String == "refresh_token")
            #expect(mine.last?["path"] as? String == "/me", "the request replayed")
            let second = try #require(await client.oauth.currentToken)
            #expect(second.refreshToken != first.refreshToken, "the rotated refresh token is kept")
        }

        @Test("a revoked refresh token (invalid_grant) ends the session and says so")
        func invalidGrantEndsSession() async throws {
            let user = ServiceStubs.uniqueUser("sc-revoked")
            let client = try await SoundCloudTesting.signedIn(as: user)
            let events = client.oauth.events
            #expect(try await ServiceStubs.revokeTokens(.soundcloud, kind: "all", user: user) >= 2, "the user's two tokens")
            guard case .oauth(.sessionExpired)? = await SoundCloudTesting.failure({ try await client.me() }) else {
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
            guard case .oauth(.notAuthenticated)? = await SoundCloudTesting.failure({ try await client.me() }) else {
                Issue.record("a reset session still made requests")
                return
            }
        }
    }
}
