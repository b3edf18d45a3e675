import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

// Spark as it answers today, against the stand-in (scripts/service_stubs_spark.py): OpenID
// Connect sign-in, the session's identity, the rate limit, the user agent and sign-out at Spark.

extension SparkTests {
    // MARK: OpenID Connect

    @Test("OpenID Connect: discovery, /openid/authorize, code exchange, the ID token verified with the provider's key; then the API")
    func openIDConnectSignIn() async throws {
        let client = try SparkTesting.client()
        let user = ServiceStubs.uniqueUser("oidc")
        let mark = try ServiceStubs.logMark()
        let (idToken, request) = try await SparkTesting.signInOpenIDConnect(client, user: user)
        let discovery = try ServiceStubs.value(.spark, "DISCOVERY_URL")
        #expect(discovery.hasSuffix("/.well-known/openid-configuration"))
        #expect(idToken.issuer + "/.well-known/openid-configuration" == discovery)
        #expect(idToken.audience == ["spark-test-client"] && idToken.nonce == request.nonce)
        #expect(idToken.email == "\(user)@example.com")
        #expect(await client.openIDIdentity == idToken.subject)
        let account = try await client.account()
        #expect(account.id == idToken.subject, "the ID token's sub is the account's Id")
        // The browser went to /openid/authorize with what OpenID Connect asks for.
        let authorize = try #require(try SparkTesting.authLog(after: mark, path: "/openid/authorize").first)
        let query = try #require(authorize["query"] as? [String: Any])
        #expect(query["scope"] as? String == "openid" && query["response_type"] as? String == "code")
        #expect(query["state"] as? String == request.state && query["nonce"] as? String == request.nonce)
        #expect(query["client_id"] as? String == "spark-test-client" && query["redirect_uri"] as? String == request.redirectURI)
        let exchange = try #require(try SparkTesting.authLog(after: mark, path: "/openid/token").first)
        #expect(exchange["grant_type"] as? String == "authorization_code" && exchange["status"] as? Int == 200)
        #expect((exchange["json"] as? [String: Any])?["redirect_uri"] as? String == request.redirectURI)
        #expect(exchange["client_auth"] as? String == "body")
        #expect(try SparkTesting.authLog(after: mark, path: "/openid/jwks.json").count == 1)
        #expect(try SparkTesting.grants(after: mark).isEmpty, "no /v1/oauth2/grant in an OpenID Connect sign-in")
    }

    @Test("an ID token for another nonce, or a redirect with another state, signs no one in")
    func openIDConnectRefusals() async throws {
        let client = try SparkTesting.client()
        let listener = try LoopbackRedirectListener()
        let request = try await client.makeOpenIDConnectRequest(redirectURI: listener.redirectURI)
        async let returned = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", ServiceStubs.uniqueUser("nonce"))])
        let redirect = try await returned
        let forgedState = SparkOpenIDConnectRequest(provider: request.provider, clientID: "spark-test-client",
                                                    redirectURI: request.redirectURI, nonce: request.nonce)
        let stateError = await SparkTesting.error { () async throws(SparkError) in
            try await client.completeOpenIDConnect(forgedState, redirect: redirect)
        }
        #expect(stateError == .authorization(.stateMismatch))
        // Same state, another nonce: the code is exchanged, the ID token refused, no session kept.
        let otherNonce = SparkOpenIDConnectRequest(provider: request.provider, clientID: "spark-test-client",
                                                   redirectURI: request.redirectURI, state: request.state, nonce: "another-nonce")
        let nonceError = await SparkTesting.error { () async throws(SparkError) in
            try await client.completeOpenIDConnect(otherNonce, redirect: redirect)
        }
        #expect(nonceError == .idToken(.nonceMismatch))
        #expect(!(await client.isAuthenticated))
        #expect(await client.openIDIdentity == nil)
        // A denial is a typed error too.
        let (denied, deniedRedirect) = try await Self.openIDConnectReturn(client, extra: [("stub_deny", "access_denied")])
        let denial = await SparkTesting.error { () async throws(SparkError) in
            try await client.completeOpenIDConnect(denied, redirect: deniedRedirect)
        }
        #expect(denial == .authorization(.accessDenied(description: "The user denied the request")))
    }

    @Test("the identity and ID token are stored with the session (encrypted); a later run has them; refreshes go to /openid/token")
    func openIDConnectPersistence() async throws {
        let directory = TestEnvironment.temporaryPath("spark-oidc-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = EncryptedFileTokenStore(directory: directory)
        let client = try SparkTesting.client(store: store)
        let user = ServiceStubs.uniqueUser("oidc-store")
        let (idToken, _) = try await SparkTesting.signInOpenIDConnect(client, user: user)
        let raw = try #require(FileManager.default.contents(atPath: try store.path(for: "spark")))
        #expect(raw.range(of: Data(idToken.subject.utf8)) == nil, "the identity is not stored in the clear")
        let later = try SparkTesting.client(store: EncryptedFileTokenStore(directory: directory))
        #expect(await later.openIDIdentity == idToken.subject)
        #expect(await later.sessionIDToken?.subject == idToken.subject)
        #expect(try await ServiceStubs.expireTokens(.spark, user: user) >= 1)
        let mark = try ServiceStubs.logMark()
        #expect(try await later.account().id == idToken.subject)
        let refresh = try #require(try SparkTesting.authLog(after: mark, path: "/openid/token").first)
        #expect(refresh["grant_type"] as? String == "refresh_token" && refresh["status"] as? Int == 200)
        #expect(try SparkTesting.grants(after: mark).isEmpty)
        let stored = try #require(try store.load(account: "spark"))
        #expect(stored.openIDIdentity == idToken.subject && stored.tokenURL?.hasSuffix("/openid/token") == true)
    }

    @Test("the Hybrid flow stays available; its OpenID identity is stored with the session")
    func hybridIdentityStored() async throws {
        let store = InMemoryTokenStore()
        let client = try SparkTesting.client(store: store)
        let (result, _) = try await SparkTesting.signIn(client)
        #expect(try store.load(account: "spark")?.openIDIdentity == result.identity)
        #expect(await (try SparkTesting.client(store: store)).openIDIdentity == result.identity)
    }

    // MARK: Rate limit, user agent, sign-out

    @Test("the stand-in's rate limit answers 503 with code 1550 in the D envelope; the client backs off and goes on")
    func rateLimit() async throws {
        let client = try SparkTesting.client()
        let user = ServiceStubs.uniqueUser("limited")
        _ = try await SparkTesting.signInOpenIDConnect(client, user: user)
        await client.setRetryPolicy(ServiceRetryPolicy(maximumRetries: 3, initialDelay: 0.4, maximumDelay: 5))
        // Only this user's sessions are limited, so no other test meets the limit.
        try await ServiceStubs.control("spark/rate-limit", ["requests": 2, "window": 1.0, "user": user])
        let mark = try ServiceStubs.logMark()
        for _ in 0..<3 { _ = try await client.account() }
        let statuses = try SparkTesting.requests(to: "/v1/my/account", after: mark).compactMap { $0["status"] as? Int }
        #expect(statuses.first == 200 && statuses.last == 200 && statuses.contains(503), "\(statuses)")
        #expect(statuses.filter { $0 == 200 }.count == 3)
        // Out of retries, the error says rate limit.
        await client.setRetryPolicy(.never)
        _ = try? await client.account()
        _ = try? await client.account()
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error == .api(code: 1550, message: "Over rate limit", status: 503) && error?.isRateLimited == true)
        try await ServiceStubs.control("spark/rate-limit", [:])
    }

    @Test("X-SparkApi-User-Agent comes from the configuration (file or environment) and is sent")
    func configuredUserAgent() async throws {
        var configuration = try ServiceStubs.configuration(.spark)
        configuration.userAgent = "ConfiguredAgent/4.2 (StreamPlay tests)"
        let client = try SparkTesting.client(userAgent: nil, configuration: configuration)
        let mark = try ServiceStubs.logMark()
        _ = try await SparkTesting.signInOpenIDConnect(client)
        _ = try await client.account()
        let sent = try SparkTesting.apiLog(after: mark) + SparkTesting.authLog(after: mark, path: "/openid/token")
        #expect(sent.count >= 2)
        for entry in sent {
            #expect((entry["headers"] as? [String: Any])?["X-SparkApi-User-Agent"] as? String == "ConfiguredAgent/4.2 (StreamPlay tests)")
        }
    }

    @Test("sign-out deletes the tokens at Spark (revocation), then here; a failure there is reported, the local tokens go anyway")
    func signOutAtSpark() async throws {
        let store = InMemoryTokenStore()
        let client = try SparkTesting.client(store: store)
        _ = try await SparkTesting.signInOpenIDConnect(client)
        let token = try #require(await client.oauth.currentToken)
        let mark = try ServiceStubs.logMark()
        try await client.signOutEverywhere()
        let revocations = try SparkTesting.authLog(after: mark, path: "/openid/revoke")
        #expect(revocations.map { $0["token_type_hint"] as? String } == ["refresh_token", "access_token"])
        #expect(revocations.allSatisfy { $0["status"] as? Int == 200 && $0["client_auth"] as? String == "body" })
        #expect(try store.load(account: "spark") == nil)
        #expect(!(await client.isAuthenticated))
        let stale = try await CurlHTTPClient().send(HTTPRequest(url: try ServiceStubs.value(.spark, "API_URL") + "/my/account", headers: [
            "X-SparkApi-User-Agent": SparkTesting.userAgent, "Authorization": "OAuth \(token.accessToken)"]))
        let staleCode = try JSON(parsing: stale.body)["D"]?["Code"]?.int
        #expect(stale.status == 401 && staleCode == 1000, "the access token is dead at Spark")

        let failing = try SparkTesting.client(store: store)
        _ = try await SparkTesting.signInOpenIDConnect(failing)
        await failing.setRetryPolicy(.never)
        try await ServiceStubs.fail(.spark, host: "auth", status: 500, count: 1, path: "/openid/revoke")
        let error = await SparkTesting.error { () async throws(SparkError) in try await failing.signOutEverywhere() }
        guard case .remoteSignOutFailed(let reason)? = error else {
            Issue.record("expected remoteSignOutFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("HTTP 500"))
        #expect(try store.load(account: "spark") == nil, "the local tokens are deleted anyway")
    }

    /// An OpenID Connect request followed to its redirect, not yet completed.
    static func openIDConnectReturn(_ client: SparkClient, extra: [(String, String)]) async throws -> (SparkOpenIDConnectRequest, String) {
        let listener = try LoopbackRedirectListener()
        let request = try await client.makeOpenIDConnectRequest(redirectURI: listener.redirectURI)
        async let returned = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: extra)
        return (request, try await returned)
    }
}
