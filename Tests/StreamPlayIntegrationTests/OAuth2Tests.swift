import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// The OAuth 2 client against a real authorization server (Authlib, scripts/oauth-server.py).
@Suite("OAuth 2 client", .serialized, .needsTestServers)
struct OAuth2Tests {
    /// /me of the test server, through `client`.
    static func me(_ client: OAuth2Client, scheme: String = "Bearer") async throws -> [String: Any] {
        let response = try await client.send(HTTPRequest(url: "\(try OAuthTestServer.base())/me"), scheme: scheme)
        try #require(response.status == 200, "/me: \(response.status) \(response.text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("authorization code with PKCE: loopback redirect, state checked, tokens, then the API")
    func authorizationCode() async throws {
        try await OAuthTestServer.reset()
        let listener = try LoopbackRedirectListener()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(public: true, redirectURI: listener.redirectURI),
                                  account: "test")
        let events = client.events
        let request = await client.makeAuthorizationRequest()
        #expect(request.url.contains("code_challenge_method=S256") && request.url.contains("state=\(request.state)"))
        let mark = try OAuthTestServer.logMark()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url)
        let token = try await client.completeAuthorization(request, redirect: try await redirect)
        #expect(token.refreshToken != nil && token.expiresAt != nil)
        #expect(await client.isAuthenticated)
        #expect(try await Self.me(client)["username"] as? String == "listener")
        let exchange = try OAuthTestServer.log(after: mark).first { $0["path"] as? String == "/token" }
        #expect(exchange?["pkce"] as? String == "S256", "\(String(describing: exchange))")
        #expect(exchange?["client_auth"] as? String == "none")
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .authenticated)
    }

    @Test("a redirect with another state is refused before its code is used")
    func stateMismatch() async throws {
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(public: true, redirectURI: "http://127.0.0.1:9/callback"),
                                  account: "test")
        let request = await client.makeAuthorizationRequest()
        let mark = try OAuthTestServer.logMark()
        await #expect(throws: OAuth2Error.stateMismatch) {
            try await client.completeAuthorization(request, redirect: "http://127.0.0.1:9/callback?code=abc&state=forged")
        }
        #expect(try OAuthTestServer.log(after: mark).isEmpty, "no token request was made")
        #expect(!(await client.isAuthenticated))
    }

    @Test("the user declining is reported as access denied")
    func denied() async throws {
        let listener = try LoopbackRedirectListener()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(
            public: true, redirectURI: listener.redirectURI, extra: [("deny", "1")]), account: "test")
        let request = await client.makeAuthorizationRequest()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url)
        let url = try await redirect
        #expect(url.contains("error=access_denied"))
        do {
            try await client.completeAuthorization(request, redirect: url)
            Issue.record("a denied authorization gave a token")
        } catch {
            guard case .accessDenied = error else { Issue.record("expected accessDenied, got \(error)"); return }
        }
    }

    @Test("refresh rotates the refresh token; the old one is then refused")
    func refreshRotation() async throws {
        try await OAuthTestServer.reset()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), account: "test")
        let first = try await client.authenticate(username: "listener", password: try OAuthTestServer.password())
        let second = try await client.refresh()
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken, "the newest refresh token is kept")
        #expect(try await Self.me(client)["username"] as? String == "listener")
        // The old refresh token, presented again, is refused: rotation happened at the server.
        let old = OAuth2Client(configuration: try OAuthTestServer.configuration(), account: "old")
        await old.adopt(first)
        do {
            _ = try await old.refresh()
            Issue.record("the rotated refresh token was accepted")
        } catch {
            guard case .sessionExpired = error else { Issue.record("expected sessionExpired, got \(error)"); return }
        }
        #expect(!(await old.isAuthenticated), "invalid_grant ends the session")
        _ = try await client.refresh()  // the newest one still works
    }

    @Test("a token about to expire is refreshed before the request")
    func refreshBeforeExpiry() async throws {
        try await OAuthTestServer.configure([("expires_in", "30")])
        defer { Task { try? await OAuthTestServer.reset() } }
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), account: "test")
        let first = try await client.authenticate(username: "listener", password: try OAuthTestServer.password())
        let mark = try OAuthTestServer.logMark()
        _ = try await Self.me(client)  // 30 s left, margin 60 s: renewed first
        let entries = try OAuthTestServer.log(after: mark)
        #expect(entries.map { $0["path"] as? String } == ["/token", "/me"], "\(entries)")
        #expect(entries.first?["grant_type"] as? String == "refresh_token")
        #expect(await client.currentToken?.accessToken != first.accessToken)
    }

    @Test("a 401 renews the token once and replays; concurrent requests share one refresh")
    func singleFlightRefreshOn401() async throws {
        try await OAuthTestServer.configure([("token_delay", "0.3")])
        defer { Task { try? await OAuthTestServer.reset() } }
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), account: "test")
        let token = try await client.authenticate(username: "listener", password: try OAuthTestServer.password())
        // Revoke the access token at the server: the client still believes it valid.
        let revoke = try await CurlHTTPClient().send(HTTPRequest(
            method: .post, url: "\(try OAuthTestServer.base())/revoke",
            headers: ["Authorization": "Basic " + Data("\(OAuthTestServer.confidentialClient):\(try OAuthTestServer.clientSecret())".utf8).base64EncodedString()],
            body: .form([("token", token.accessToken), ("token_type_hint", "access_token")])))
        try #require(revoke.status == 200)
        let mark = try OAuthTestServer.logMark()
        let names = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<5 { group.addTask { try await Self.me(client)["username"] as? String } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: "listener", count: 5))
        let refreshes = try OAuthTestServer.log(after: mark).filter { $0["grant_type"] as? String == "refresh_token" }
        #expect(refreshes.count == 1, "one refresh for five requests: \(refreshes)")
    }

    @Test("a revoked refresh token ends the session cleanly and says so")
    func invalidGrantResets() async throws {
        try await OAuthTestServer.reset()
        let store = InMemoryTokenStore()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), store: store, account: "test")
        let token = try await client.authenticate(username: "listener", password: try OAuthTestServer.password())
        #expect(try store.load(account: "test") == token)
        let events = client.events
        let revoke = try await CurlHTTPClient().send(HTTPRequest(
            method: .post, url: "\(try OAuthTestServer.base())/revoke",
            headers: ["Authorization": "Basic " + Data("\(OAuthTestServer.confidentialClient):\(try OAuthTestServer.clientSecret())".utf8).base64EncodedString()],
            body: .form([("token", try #require(token.refreshToken)), ("token_type_hint", "refresh_token")])))
        try #require(revoke.status == 200)
        do {
            _ = try await client.refresh()
            Issue.record("a revoked refresh token was accepted")
        } catch {
            guard case .sessionExpired = error else { Issue.record("expected sessionExpired, got \(error)"); return }
        }
        #expect(!(await client.isAuthenticated))
        #expect(try store.load(account: "test") == nil, "the stored token is gone")
        // The failed refresh is reported, then the end of the session.
        var iterator = events.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        if case .failedToGetAccessToken(.tokenRequestFailed("invalid_grant", _, _))? = first {} else {
            Issue.record("expected the failed refresh first, got \(String(describing: first))")
        }
        #expect(second == .authenticationReset)
        await #expect(throws: OAuth2Error.notAuthenticated) { _ = try await client.accessToken() }
    }

    @Test("client credentials, with Basic auth and with the secret in the form")
    func clientCredentials() async throws {
        try await OAuthTestServer.reset()
        for authentication in [OAuth2Configuration.ClientAuthentication.basic, .formFields] {
            let client = OAuth2Client(configuration: try OAuthTestServer.configuration(authentication: authentication), account: "app")
            let mark = try OAuthTestServer.logMark()
            let token = try await client.authenticateWithClientCredentials()
            #expect(token.refreshToken == nil)
            let entry = try OAuthTestServer.log(after: mark).first
            #expect(entry?["client_authenticated"] as? String == (authentication == .basic ? "client_secret_basic" : "client_secret_post"))
            let me = try await Self.me(client, scheme: "OAuth")
            #expect(me["client_id"] as? String == OAuthTestServer.confidentialClient)
        }
    }

    @Test("a client-credentials token stays in memory: a later run does not take it for a user's session")
    func clientCredentialsNotStored() async throws {
        try await OAuthTestServer.reset()
        let store = InMemoryTokenStore()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), store: store, account: "app")
        try await client.authenticateWithClientCredentials()
        #expect(await client.isAuthenticated)
        #expect(try store.load(account: "app") == nil)
        // Concurrent callers (a resolver resolving several links) share one grant.
        try await OAuthTestServer.configure([("token_delay", "0.3")])
        defer { Task { try? await OAuthTestServer.reset() } }
        let mark = try OAuthTestServer.logMark()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await client.authenticateWithClientCredentials().accessToken } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(tokens).count == 1)
        let grants = try OAuthTestServer.log(after: mark).filter { $0["grant_type"] as? String == "client_credentials" }
        #expect(grants.count == 1, "one grant for four callers: \(grants.count)")
    }

    @Test("signing out while a refresh is under way is not undone by its answer")
    func signOutDuringRefresh() async throws {
        try await OAuthTestServer.reset()
        defer { Task { try? await OAuthTestServer.reset() } }
        let store = InMemoryTokenStore()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), store: store, account: "test")
        try await client.authenticate(username: "listener", password: try OAuthTestServer.password())
        try await OAuthTestServer.configure([("token_delay", "1")])
        let refresh = Task { try await client.refresh() }
        try await Task.sleep(for: .milliseconds(300))
        await client.signOut()
        await #expect(throws: OAuth2Error.self) { try await refresh.value }
        #expect(!(await client.isAuthenticated))
        #expect(try store.load(account: "test") == nil, "the late answer was not stored")
    }

    @Test("descriptions and dumps of configurations and requests show no secret, verifier or state")
    func noSecretsInDescriptions() throws {
        let configuration = OAuth2Configuration(clientID: "id", clientSecret: "s3cr3t-value", authorizationURL: "http://127.0.0.1:1/a",
                                                tokenURL: "http://127.0.0.1:1/t", redirectURI: "http://127.0.0.1:2/callback")
        let request = AuthorizationRequest(configuration: configuration)
        var dumped = ""
        dump(configuration, to: &dumped)
        dump(request, to: &dumped)
        for text in [configuration.description, String(reflecting: configuration), request.description,
                     String(reflecting: request), request.pkce.description, "\(request)", dumped] {
            #expect(!text.contains("s3cr3t-value"))
            #expect(!text.contains(request.pkce.verifier))
            #expect(!text.contains(request.state))
        }
        let service = ServiceConfiguration(service: .spark, clientID: "id", clientSecret: "s3cr3t-value",
                                           authorizationURL: "http://127.0.0.1:1/a", tokenURL: "http://127.0.0.1:1/t",
                                           apiURL: "http://127.0.0.1:1")
        var serviceDump = ""
        dump(service, to: &serviceDump)
        #expect(!serviceDump.contains("s3cr3t-value") && !String(reflecting: service).contains("s3cr3t-value"))
    }

    @Test("a server's absurd expires_in is bounded; echoed tokens are scrubbed from server messages")
    func hostileTokenAnswers() throws {
        let body = Array(#"{"access_token": "a", "token_type": "Bearer", "expires_in": 1e300}"#.utf8)
        let token = try TokenResponse.parse(HTTPResponse(status: 200, body: body, url: "http://127.0.0.1:1/t"))
        let expiresAt = try #require(token.expiresAt)
        #expect(expiresAt.timeIntervalSinceNow <= 10 * 365 * 86400 + 1)
        #expect(token.description.contains("expires in"))
        #expect(OAuth2Error.timedOut(seconds: .infinity).description.contains("no authorization redirect"))
        #expect(OAuth2Client.scrubbed("invalid code ac_Zx81kq0Pn3vW7yT2mB5 given") == "invalid code [redacted] given")
        #expect(OAuth2Client.scrubbed("The X-SparkApi-User-Agent request header is required") ==
                "The X-SparkApi-User-Agent request header is required")
    }

    @Test("a wrong client secret or password is a typed token error")
    func wrongCredentials() async throws {
        var configuration = try OAuthTestServer.configuration()
        configuration.clientSecret = "wrong"
        let badClient = OAuth2Client(configuration: configuration, account: "app")
        do {
            try await badClient.authenticateWithClientCredentials()
            Issue.record("a wrong secret was accepted")
        } catch {
            guard case .tokenRequestFailed("invalid_client", _, 401) = error else { Issue.record("\(error)"); return }
        }
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(), account: "test")
        do {
            try await client.authenticate(username: "listener", password: "wrong")
            Issue.record("a wrong password was accepted")
        } catch {
            guard case .tokenRequestFailed("invalid_grant", _, 400) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("no token, secret, code or password reaches the logs or the errors")
    func redaction() async throws {
        try await OAuthTestServer.reset()
        CapturingLogHandler.lines.withEngineLock { $0 = [] }
        let logger = CapturingLogHandler.logger()
        let listener = try LoopbackRedirectListener()
        let client = OAuth2Client(configuration: try OAuthTestServer.configuration(redirectURI: listener.redirectURI),
                                  account: "test", logger: logger)
        let request = await client.makeAuthorizationRequest()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url)
        let redirectURL = try await redirect
        let code = try request.code(from: redirectURL)
        let token = try await client.completeAuthorization(request, redirect: redirectURL)
        let refreshed = try await client.refresh()
        var failures: [String] = []
        var wrong = try OAuthTestServer.configuration()
        wrong.clientSecret = "also-a-secret-\(UUID().uuidString)"
        do { try await OAuth2Client(configuration: wrong, account: "x", logger: logger).authenticateWithClientCredentials() } catch {
            failures.append(error.description)
        }
        do { try await client.authenticate(username: "listener", password: "secret-password-\(UUID().uuidString)") } catch {
            failures.append(error.description)
        }
        let secrets = [token.accessToken, token.refreshToken, refreshed.accessToken, refreshed.refreshToken, code,
                       request.pkce.verifier, try OAuthTestServer.clientSecret(), wrong.clientSecret].compactMap { $0 }
        let lines = CapturingLogHandler.lines.withEngineLock { $0 }
        #expect(!lines.isEmpty)
        let everything = (lines + failures + [token.description, refreshed.description]).joined(separator: "\n")
        for secret in secrets { #expect(!everything.contains(secret), "a secret appears in the logs or errors") }
        #expect(!everything.contains("secret-password-") && !everything.contains("also-a-secret-"))
    }

    // MARK: A non-standard token endpoint (the Spark stand-in's /v1/oauth2/grant)

    /// Spark's grant settings on a plain OAuth2Client: JSON bodies with the secret, and, when
    /// `spark`, the headers and refresh redirect URI its grant endpoint wants.
    static func sparkConfiguration(redirectURI: String, spark: Bool) throws -> OAuth2Configuration {
        var configuration = try ServiceStubs.configuration(.spark, redirectURI: redirectURI)
            .oauth2Configuration(clientAuthentication: .formFields)
        configuration.tokenRequestEncoding = .json
        if spark {
            configuration.tokenRequestHeaders = ["X-SparkApi-User-Agent": "OAuth2Tests/1.0"]
            configuration.refreshIncludesRedirectURI = true
        }
        return configuration
    }

    /// A code from the Spark stand-in's /oauth2 for `redirectURI` (a loopback listener's).
    static func sparkCode(_ listener: LoopbackRedirectListener, configuration: OAuth2Configuration) async throws -> String {
        let request = AuthorizationRequest(configuration: configuration)
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url)
        return try request.code(from: try await redirect)
    }

    @Test("exchange(code:) without PKCE; token request headers on every grant; refresh repeats the exchange's redirect URI")
    func exchangeWithHeadersAndRefreshRedirect() async throws {
        let listener = try LoopbackRedirectListener()
        // The configured redirect URI differs from the exchange's: the refresh must use the latter.
        let configuration = try Self.sparkConfiguration(redirectURI: "http://127.0.0.1:9/configured", spark: true)
        var authorize = configuration
        authorize.redirectURI = listener.redirectURI
        let code = try await Self.sparkCode(listener, configuration: authorize)
        let client = OAuth2Client(configuration: configuration, account: "spark-direct")
        let mark = try ServiceStubs.logMark()
        let first = try await client.exchange(code: code, redirectURI: listener.redirectURI)
        let second = try await client.refresh()
        #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
        let grants = try ServiceStubs.log(after: mark).filter { $0["path"] as? String == "/v1/oauth2/grant" }
        #expect(grants.map { $0["grant_type"] as? String } == ["authorization_code", "refresh_token"])
        #expect(grants.map { $0["status"] as? Int } == [200, 200])
        for grant in grants {
            let headers = grant["headers"] as? [String: Any]
            #expect(headers?["X-SparkApi-User-Agent"] as? String == "OAuth2Tests/1.0")
            #expect(headers?["Content-Type"] as? String == "application/json")
            let body = grant["json"] as? [String: Any]
            #expect(body?["redirect_uri"] as? String == listener.redirectURI, "\(grant["grant_type"] ?? "?")")
            #expect(body?["code_verifier"] == nil, "no PKCE verifier was given")
        }
        // The redirect URI is kept with the token: a later run (a client restored from the
        // store) repeats it; a token taken up from elsewhere without one sends the configured one.
        #expect(second.redirectURI == listener.redirectURI)
        let store = InMemoryTokenStore()
        try store.save(second, account: "spark-direct")
        let restored = OAuth2Client(configuration: configuration, store: store, account: "spark-direct")
        let mark2 = try ServiceStubs.logMark()
        let third = try await restored.refresh()
        let again = try ServiceStubs.log(after: mark2).first { $0["path"] as? String == "/v1/oauth2/grant" }
        #expect((again?["json"] as? [String: Any])?["redirect_uri"] as? String == listener.redirectURI)
        var foreign = third
        foreign.redirectURI = nil
        await client.signOut()
        await client.adopt(foreign)
        let mark3 = try ServiceStubs.logMark()
        _ = try? await client.refresh()
        let adopted = try ServiceStubs.log(after: mark3).first { $0["path"] as? String == "/v1/oauth2/grant" }
        #expect((adopted?["json"] as? [String: Any])?["redirect_uri"] as? String == "http://127.0.0.1:9/configured")
    }

    @Test("by default a refresh sends no redirect URI and no extra header (Spark then refuses it, typed)")
    func defaultsKeepStandardRefresh() async throws {
        let listener = try LoopbackRedirectListener()
        let configuration = try Self.sparkConfiguration(redirectURI: listener.redirectURI, spark: true)
        #expect(OAuth2Configuration(clientID: "c", authorizationURL: "a", tokenURL: "t").tokenRequestHeaders.fields.isEmpty)
        #expect(!OAuth2Configuration(clientID: "c", authorizationURL: "a", tokenURL: "t").refreshIncludesRedirectURI)
        let code = try await Self.sparkCode(listener, configuration: configuration)
        let session = OAuth2Client(configuration: configuration, account: "spark-direct")
        let token = try await session.exchange(code: code, redirectURI: listener.redirectURI)
        var plain = configuration
        plain.refreshIncludesRedirectURI = false
        let client = OAuth2Client(configuration: plain, account: "spark-plain")
        await client.adopt(token)
        let mark = try ServiceStubs.logMark()
        await #expect(throws: OAuth2Error.tokenRequestFailed(error: "invalid_request", description: "redirect_uri is required", status: 400)) {
            try await client.refresh()
        }
        let refresh = try ServiceStubs.log(after: mark).first { $0["path"] as? String == "/v1/oauth2/grant" }
        #expect((refresh?["json"] as? [String: Any])?.keys.contains("redirect_uri") == false)
        #expect(await client.isAuthenticated, "only invalid_grant ends a session")
    }

    @Test("a token endpoint answering a non-OAuth error body (Spark's 1016 envelope) gives a clear typed error")
    func nonOAuthErrorBody() async throws {
        let listener = try LoopbackRedirectListener()
        let configuration = try Self.sparkConfiguration(redirectURI: listener.redirectURI, spark: false)
        let code = try await Self.sparkCode(listener, configuration: configuration)
        CapturingLogHandler.lines.withEngineLock { $0 = [] }
        let client = OAuth2Client(configuration: configuration, account: "spark-bare", logger: CapturingLogHandler.logger())
        let events = client.events
        do {
            try await client.exchange(code: code, redirectURI: listener.redirectURI)
            Issue.record("a grant without X-SparkApi-User-Agent was accepted")
        } catch {
            guard case .invalidResponse(let reason, 400) = error else { Issue.record("expected invalidResponse 400, got \(error)"); return }
            #expect(reason.contains("code 1016") && reason.contains("X-SparkApi-User-Agent request header is required"), "\(reason)")
            #expect(!error.description.contains(code) && !error.description.contains("spark-test-secret"))
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == .failedToGetAccessToken(error))
        }
        #expect(!(await client.isAuthenticated))
        let logged = CapturingLogHandler.lines.withEngineLock { $0 }.joined(separator: "\n")
        #expect(logged.contains("token request failed") && !logged.contains(code) && !logged.contains("spark-test-secret"))
    }
}
