import Foundation
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// Spark's OpenID Connect sign-in, session, user agent, rate limit and sign-out against
/// FakeSpark's provider (discovery, key set, token endpoint, revocation).
@Suite("Spark OpenID Connect, in memory")
struct SparkOpenIDConnectTests {
    static func client(_ fake: FakeSpark, store: (any TokenStore)? = nil, userAgent: String? = "StreamPlayTests/1",
                       configuration: ServiceConfiguration? = nil) async -> SparkClient {
        let client = SparkClient(configuration: configuration ?? fake.configuration, http: fake.transport, store: store,
                                 userAgent: userAgent)
        await client.setRetryPolicy(ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0, maximumDelay: 5))
        return client
    }

    static func signIn(_ client: SparkClient, _ fake: FakeSpark) async throws -> IDToken {
        let request = try await client.makeOpenIDConnectRequest()
        return try await client.completeOpenIDConnect(request, redirect: fake.authorize(request))
    }

    @Test("the authorize URL: /openid/authorize from discovery, scope=openid, state, nonce, response_type=code")
    func authorizeURL() async throws {
        let fake = FakeSpark()
        let client = await Self.client(fake)
        let request = try await client.makeOpenIDConnectRequest()
        let url = try #require(URLComponents(string: request.url))
        #expect(url.host == "sparkplatform.com" && url.path == "/openid/authorize")
        let items = Dictionary(uniqueKeysWithValues: (url.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["scope"] == "openid" && items["response_type"] == "code" && items["client_id"] == FakeSpark.clientID)
        #expect(items["state"] == request.state && items["nonce"] == request.nonce && request.state != request.nonce)
        #expect(items["redirect_uri"] == "http://127.0.0.1:8765/callback" && items["code_challenge"] == nil)
        #expect(!String(describing: request).contains(request.state) && !String(describing: request).contains(request.nonce))
        // The discovery document is read once per client.
        _ = try await client.makeOpenIDConnectRequest()
        #expect(fake.transport.requests.filter { $0.path == "/.well-known/openid-configuration" }.count == 1)
    }

    @Test("sign-in: code exchanged at the token endpoint, the ID token verified, then the API")
    func signIn() async throws {
        let fake = FakeSpark()
        let client = await Self.client(fake)
        let idToken = try await Self.signIn(client, fake)
        #expect(idToken.subject == FakeSpark.accountID && idToken.issuer == FakeSpark.issuer && idToken.name == "StreamPlay Tester")
        #expect(await client.openIDIdentity == FakeSpark.accountID)
        #expect(try await client.account().name == "StreamPlay Tester")
        let paths = fake.transport.requests.map(\.path)
        #expect(paths == ["/.well-known/openid-configuration", "/openid/token", "/openid/jwks.json", "/v1/my/account"])
        let exchange = try #require(fake.transport.requests.first { $0.path == "/openid/token" })
        let body = try JSON(parsing: exchange.bodyBytes)
        #expect(body["grant_type"]?.string == "authorization_code" && body["redirect_uri"]?.string == "http://127.0.0.1:8765/callback")
        #expect(body["client_id"]?.string == FakeSpark.clientID && exchange.headers["X-SparkApi-User-Agent"] == "StreamPlayTests/1")
    }

    @Test("a spoiled ID token is a typed error and leaves no session")
    func spoiledTokens() async throws {
        let cases: [(FakeSpark.IDTokenFault, (SparkError) -> Bool)] = [
            (.wrongKey, { $0 == .idToken(.badSignature) }),
            (.wrongIssuer, { $0 == .idToken(.wrongIssuer(expected: FakeSpark.issuer, found: "https://evil.example")) }),
            (.wrongAudience, { $0 == .idToken(.wrongAudience(expected: FakeSpark.clientID, found: ["another-client"])) }),
            (.wrongNonce, { $0 == .idToken(.nonceMismatch) }),
            (.expired, { if case .idToken(.expired) = $0 { true } else { false } }),
            (.missing, { $0 == .invalidOpenIDResponse(reason: "the token answer has no id_token") }),
        ]
        for (fault, matches) in cases {
            let fake = FakeSpark()
            let store = InMemoryTokenStore()
            let client = await Self.client(fake, store: store)
            fake.spoilIDTokens(fault)
            do {
                _ = try await Self.signIn(client, fake)
                Issue.record("\(fault): signed in")
            } catch let error as SparkError {
                #expect(matches(error), "\(fault): \(error)")
            }
            #expect(!(await client.isAuthenticated), "\(fault): no session")
            #expect(try store.load(account: "spark") == nil, "\(fault): nothing stored")
            #expect(await client.openIDIdentity == nil)
        }
    }

    @Test("the identity is stored with the session; refreshes go to the token endpoint and keep it (with the refresh's verified ID token)")
    func persistence() async throws {
        let fake = FakeSpark()
        let store = InMemoryTokenStore()
        let first = await Self.client(fake, store: store)
        _ = try await Self.signIn(first, fake)
        let stored = try #require(try store.load(account: "spark"))
        #expect(stored.openIDIdentity == FakeSpark.accountID && stored.idToken != nil)
        #expect(stored.tokenURL == "https://sparkplatform.com/openid/token")
        // A later run: the identity and the ID token come back with the session.
        let later = await Self.client(fake, store: store)
        #expect(await later.openIDIdentity == FakeSpark.accountID)
        #expect(await later.sessionIDToken?.subject == FakeSpark.accountID)
        fake.expireAccessTokens()
        #expect(try await later.account().name == "StreamPlay Tester")
        let refresh = try #require(fake.transport.requests.last { $0.path == "/openid/token" })
        #expect((try JSON(parsing: refresh.bodyBytes))["grant_type"]?.string == "refresh_token")
        #expect(!fake.transport.requests.contains { $0.path == "/v1/oauth2/grant" }, "an OpenID Connect session never uses the old grant")
        let renewed = try #require(try store.load(account: "spark"))
        #expect(renewed.refreshToken != stored.refreshToken && renewed.openIDIdentity == FakeSpark.accountID)
        #expect(renewed.tokenURL == stored.tokenURL)
        // The refresh's ID token (verified, without a nonce) replaced the sign-in's; same user.
        #expect(renewed.idToken != nil && renewed.idToken != stored.idToken)
        #expect(await later.sessionIDToken?.subject == FakeSpark.accountID)
    }

    @Test("a plain OAuth 2 session keeps the configured grant endpoint and has no identity")
    func plainOAuth2Session() async throws {
        let fake = FakeSpark()
        let store = InMemoryTokenStore()
        let client = await Self.client(fake, store: store)
        let request = client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        #expect(try store.load(account: "spark")?.openIDIdentity == nil, "plain OAuth 2 has no identity")
        #expect(try store.load(account: "spark")?.tokenURL == nil, "the grant endpoint stays the configuration's")
    }

    @Test("X-SparkApi-User-Agent: the configuration's value, from the config file or the environment")
    func userAgent() async throws {
        let fake = FakeSpark()
        var configuration = fake.configuration
        configuration.userAgent = "ConfiguredApp/2.0"
        let client = await Self.client(fake, userAgent: nil, configuration: configuration)
        #expect(client.userAgent == "ConfiguredApp/2.0")
        _ = try await Self.signIn(client, fake)
        _ = try await client.account()
        let sent = fake.transport.requests.filter { $0.host == FakeSpark.apiHost || $0.path == "/openid/token" }
        #expect(!sent.isEmpty && sent.allSatisfy { $0.headers["X-SparkApi-User-Agent"] == "ConfiguredApp/2.0" })
        // The environment wins over the file; the file's value is read too.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spark-ua-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("config.json").path
        try #"{"spark": {"client_id": "id", "user_agent": "FileApp/1.0 (tests)"}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServiceSettings.load(environment: [:], configFile: file)[.spark].userAgent == "FileApp/1.0 (tests)")
        let fromEnvironment = try ServiceSettings.load(environment: ["STREAMPLAY_SPARK_USER_AGENT": "EnvApp/3.0"], configFile: file)
        #expect(fromEnvironment[.spark].userAgent == "EnvApp/3.0")
        #expect(SparkClient(configuration: fromEnvironment[.spark]).userAgent == "EnvApp/3.0")
        #expect(SparkClient(configuration: ServiceConfiguration.defaults(for: .spark)).userAgent == "StreamPlay/0.1")
    }

    @Test("rate limit: code 1550 with HTTP 503 is retried; out of retries it is a typed rate-limit error")
    func rateLimit() async throws {
        let fake = FakeSpark()
        let client = await Self.client(fake)
        _ = try await Self.signIn(client, fake)
        fake.failNext(2, status: 503, code: 1550, message: "Over rate limit", pathPrefix: "/v1/my/")
        #expect(try await client.account().name == "StreamPlay Tester")
        #expect(fake.transport.requests.filter { $0.path == "/v1/my/account" }.count == 3)
        // A POST is retried too: a rate-limited request was not carried out.
        fake.failNext(1, status: 503, code: 1550, message: "Over rate limit", pathPrefix: "/v1/contacts")
        _ = try await client.post("/contacts", body: ["DisplayName": "Once", "PrimaryEmail": "once@example.com"])
        #expect(fake.storedContacts.count == 2)
        fake.failNext(3, status: 503, code: 1550, message: "Over rate limit", pathPrefix: "/v1/my/")
        do {
            _ = try await client.account()
            Issue.record("expected the rate limit")
        } catch {
            #expect(error == .api(code: 1550, message: "Over rate limit", status: 503))
            #expect(error.isRateLimited && !SparkError.api(code: 1510, message: "", status: 503).isRateLimited)
        }
    }

    @Test("sign-out deletes the tokens at Spark, then here; a failure there is reported and the tokens go anyway")
    func signOut() async throws {
        let fake = FakeSpark()
        let store = InMemoryTokenStore()
        let client = await Self.client(fake, store: store)
        _ = try await Self.signIn(client, fake)
        let token = try #require(await client.oauth.currentToken)
        try await client.signOutEverywhere()
        #expect(fake.revocations == ["refresh_token", "access_token"])
        #expect(!(await client.isAuthenticated))
        #expect(try store.load(account: "spark") == nil)
        #expect(await client.openIDIdentity == nil)
        let stale = try await fake.transport.send(HTTPRequest(url: "https://sparkapi.com/v1/my/account",
                                                              headers: ["X-SparkApi-User-Agent": "t", "Authorization": "OAuth \(token.accessToken)"]))
        #expect(stale.status == 401, "the access token is dead at Spark")

        let failing = FakeSpark()
        let failingStore = InMemoryTokenStore()
        let other = await Self.client(failing, store: failingStore)
        _ = try await Self.signIn(other, failing)
        failing.failRevocation(status: 400)
        do {
            try await other.signOutEverywhere()
            Issue.record("expected the remote failure")
        } catch {
            guard case .remoteSignOutFailed(let reason) = error else {
                Issue.record("expected remoteSignOutFailed, got \(error)")
                return
            }
            #expect(reason.contains("HTTP 400") && reason.contains("temporarily_unavailable"))
            #expect(!reason.contains(token.accessToken))
        }
        #expect(!(await other.isAuthenticated))
        #expect(try failingStore.load(account: "spark") == nil, "deleted here anyway")
    }
}
