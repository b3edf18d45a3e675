import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// The Spark platform client against the Spark stand-in (scripts/service-stubs.py).
@Suite("Spark client", .serialized, .needsTestServers)
struct SparkTests {
    // MARK: Sign-in

    @Test("Hybrid OpenID: the URL asks for AX and a code; attributes read back; code exchanged; then the API")
    func hybridSignIn() async throws {
        let client = try SparkTesting.client()
        let listener = try LoopbackRedirectListener()
        let request = client.makeOpenIDRequest(returnTo: listener.redirectURI)
        for (name, value) in [("openid.mode", "checkid_setup"), ("openid.return_to", listener.redirectURI),
                              ("openid.spark.client_id", "spark-test-client"), ("openid.spark.combined_flow", "true"),
                              ("openid.spark.state", request.state), ("openid.ns", "http://specs.openid.net/auth/2.0"),
                              ("openid.ns.ax", "http://openid.net/srv/ax/1.0"), ("openid.ax.mode", "fetch_request"),
                              ("openid.ax.type.email", SparkOpenIDAttribute.email.typeURI),
                              ("openid.ax.required", "email,first_name,last_name,friendly")] {
            #expect(SparkTesting.queryValue(name, in: request.url) == value, "\(name) in the OpenID URL")
        }
        let user = ServiceStubs.uniqueUser("hybrid")
        let mark = try ServiceStubs.logMark()
        async let returned = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
        let returnURL = try await returned
        #expect(SparkTesting.queryValue("openid.spark.code", in: returnURL) != nil)
        let result = try await client.completeOpenID(request, returnURL: returnURL)
        #expect(result.hasAPISession)
        #expect(result.identity.contains("/openid/id/") && result.claimedID == result.identity)
        #expect(result.value(of: .email) == "\(user)@example.com")
        #expect(result.value(of: .friendlyName) == user)
        #expect(result.value(of: .firstName) == "Hybrid" && result.value(of: .lastName)?.hasSuffix(" User") == true)
        #expect(await client.openIDIdentity == result.identity)
        #expect(await client.isAuthenticated)
        let grant = try #require(try SparkTesting.grants(after: mark, "authorization_code").first)
        let body = try #require(grant["json"] as? [String: Any])
        #expect(body["redirect_uri"] as? String == listener.redirectURI, "the code is exchanged with the exact return_to")
        #expect(body["client_id"] as? String == "spark-test-client" && body["client_secret"] != nil)
        #expect(grant["status"] as? Int == 200)
        let account = try await client.account()
        #expect(account.id == result.sparkID)
        #expect(account.primaryEmail == "\(user)@example.com" && !account.name.isEmpty && account.userType == "Member")
    }

    @Test("plain OpenID: identity and attributes only, no code, no API session")
    func plainOpenID() async throws {
        let client = try SparkTesting.client()
        let mark = try ServiceStubs.logMark()
        let (result, returnURL) = try await SparkTesting.signIn(client, hybrid: false, attributes: [.email, .fullName])
        #expect(SparkTesting.queryValue("openid.spark.code", in: returnURL) == nil)
        #expect(!result.hasAPISession && result.sparkID != nil)
        #expect(result.value(of: .email)?.hasSuffix("@example.com") == true && result.value(of: .fullName) != nil)
        #expect(try SparkTesting.grants(after: mark).isEmpty, "no grant without a code")
        #expect(!(await client.isAuthenticated))
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error == .authorization(.notAuthenticated))
    }

    @Test("OpenID cancel and error returns are typed errors")
    func openIDCancelAndError() async throws {
        let client = try SparkTesting.client()
        let (cancelRequest, cancelled) = try await SparkTesting.openIDReturn(client, extra: [("stub_deny", "cancel")])
        let cancel = await SparkTesting.error { () async throws(SparkError) in try await client.completeOpenID(cancelRequest, returnURL: cancelled) }
        #expect(cancel == .openIDCancelled)
        let (errorRequest, failed) = try await SparkTesting.openIDReturn(client, extra: [("stub_deny", "Account locked")])
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.completeOpenID(errorRequest, returnURL: failed) }
        #expect(error == .openIDFailed(message: "Account locked"))
        // A wrong client id comes back as an OpenID error too.
        var configuration = try ServiceStubs.configuration(.spark)
        configuration.clientID = "not-a-client"
        let stranger = SparkClient(configuration: configuration, userAgent: SparkTesting.userAgent)
        let (strangerRequest, refused) = try await SparkTesting.openIDReturn(stranger)
        let invalid = await SparkTesting.error { () async throws(SparkError) in try await stranger.completeOpenID(strangerRequest, returnURL: refused) }
        #expect(invalid == .openIDFailed(message: "Invalid openid.spark.client_id"))
        #expect(!(await client.isAuthenticated))
    }

    @Test("a return with another state is refused before its code is used (OpenID and OAuth 2)")
    func stateMismatch() async throws {
        let client = try SparkTesting.client(redirectURI: "http://127.0.0.1:9/callback")
        let (request, returnURL) = try await SparkTesting.openIDReturn(client)
        let other = client.makeOpenIDRequest(returnTo: request.returnTo)
        let mark = try ServiceStubs.logMark()
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.completeOpenID(other, returnURL: returnURL) }
        #expect(error == .authorization(.stateMismatch))
        let forged = returnURL.replacingOccurrences(of: "openid.spark.state=", with: "openid.spark.state=forged")
        let forgedError = await SparkTesting.error { () async throws(SparkError) in try await client.completeOpenID(request, returnURL: forged) }
        #expect(forgedError == .authorization(.stateMismatch))
        let oauthRequest = client.makeAuthorizationRequest()
        let oauthError = await SparkTesting.error { () async throws(SparkError) in
            try await client.completeAuthorization(oauthRequest, redirect: "http://127.0.0.1:9/callback?code=abc&state=forged")
        }
        #expect(oauthError == .authorization(.stateMismatch))
        #expect(try SparkTesting.grants(after: mark).isEmpty, "no grant was made")
        #expect(!(await client.isAuthenticated))
        // The untouched return still works: the refusals did not use its code up.
        #expect(try await client.completeOpenID(request, returnURL: returnURL).hasAPISession)
    }

    @Test("plain OAuth 2: /oauth2 authorize, state checked, JSON grant, then the API")
    func plainOAuth2() async throws {
        let listener = try LoopbackRedirectListener()
        let client = try SparkTesting.client(redirectURI: listener.redirectURI)
        let request = client.makeAuthorizationRequest()
        #expect(request.url.hasPrefix(try ServiceStubs.value(.spark, "AUTH_URL") + "?"))
        #expect(SparkTesting.queryValue("response_type", in: request.url) == "code")
        #expect(SparkTesting.queryValue("redirect_uri", in: request.url) == listener.redirectURI)
        let mark = try ServiceStubs.logMark()
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", ServiceStubs.uniqueUser("oauth"))])
        let token = try await client.completeAuthorization(request, redirect: try await redirect)
        #expect(token.refreshToken != nil && token.expiresAt != nil)
        let grant = try #require(try SparkTesting.grants(after: mark, "authorization_code").first)
        #expect((grant["json"] as? [String: Any])?["redirect_uri"] as? String == listener.redirectURI)
        #expect(grant["headers"].flatMap { ($0 as? [String: Any])?["Content-Type"] as? String } == "application/json")
        #expect(try await client.account().name.hasSuffix("User"))
        // Spark has no PKCE; the challenge the shared request carries is ignored, not refused.
        #expect(SparkTesting.queryValue("code_challenge", in: request.url) != nil)
        // A declined authorization is typed.
        let declined = client.makeAuthorizationRequest()
        let error = await SparkTesting.error { () async throws(SparkError) in
            try await client.completeAuthorization(declined, redirect: "http://127.0.0.1:9/callback?error=access_denied&state=\(declined.state)")
        }
        #expect(error == .authorization(.accessDenied(description: nil)))
    }

    // MARK: Requests

    @Test("X-SparkApi-User-Agent on every request, the grants included; OAuth scheme on API calls")
    func userAgentOnEveryRequest() async throws {
        let client = try SparkTesting.client()
        let mark = try ServiceStubs.logMark()
        _ = try await SparkTesting.signIn(client)
        _ = try await client.account()
        try await client.refresh()
        _ = try await client.get("/listings", parameters: ["_limit": "1"])
        try await ServiceStubs.fail(.spark, status: 401, path: "/v1/contacts", sparkCode: 1020)
        _ = try await client.get("/contacts")
        let entries = try SparkTesting.apiLog(after: mark)
        #expect(entries.count >= 7, "\(entries.count) requests")
        for entry in entries {
            let headers = entry["headers"] as? [String: Any]
            #expect(headers?["X-SparkApi-User-Agent"] as? String == SparkTesting.userAgent, "\(entry["path"] ?? "?")")
        }
        #expect(try SparkTesting.grants(after: mark, "authorization_code").count == 1)
        #expect(try SparkTesting.grants(after: mark, "refresh_token").count == 2)
        let calls = entries.filter { $0["path"] as? String != "/v1/oauth2/grant" }
        #expect(calls.allSatisfy { $0["auth"] as? String == "OAuth" })
        // Without the header Spark answers 400 1016, which reads as a typed error.
        let bare = try await CurlHTTPClient().send(HTTPRequest(url: try ServiceStubs.value(.spark, "API_URL") + "/my/account"))
        #expect(throws: SparkError.api(code: 1016, message: "The X-SparkApi-User-Agent request header is required. No request to the API will be successful without it.", status: 400)) {
            try SparkResponse(bare)
        }
    }

    @Test("D-envelope errors are typed: 404, 1053 bad _limit, 1050 missing attribute, 1055 conflict")
    func envelopeErrors() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let missing = await SparkTesting.error { () async throws(SparkError) in try await client.get("/listings/00000000000000000000000000") }
        #expect(missing == .api(code: 404, message: "Not Found", status: 404))
        let badLimit = await SparkTesting.error { () async throws(SparkError) in try await client.get("/listings", parameters: ["_limit": "99"]) }
        #expect(badLimit == .api(code: 1053, message: "_limit must be an integer from 1 to 25", status: 400))
        let noEmail = await SparkTesting.error { () async throws(SparkError) in try await client.post("/contacts", body: ["DisplayName": "No Mail"]) }
        #expect(noEmail == .api(code: 1050, message: "PrimaryEmail is required", status: 400))
        let email = "\(ServiceStubs.uniqueUser("dup"))@example.com"
        _ = try await client.post("/contacts", body: ["DisplayName": "First", "PrimaryEmail": .string(email)])
        let conflict = await SparkTesting.error { () async throws(SparkError) in
            try await client.post("/contacts", body: ["DisplayName": "Second", "PrimaryEmail": .string(email.uppercased())])
        }
        #expect(conflict?.code == 1055)
        if case .api(_, let message, let status) = conflict { #expect(status == 409 && !message.isEmpty) }
        let wrongMethod = await SparkTesting.error { () async throws(SparkError) in try await client.delete("/my/account") }
        #expect(wrongMethod == .api(code: 405, message: "Method not allowed", status: 405))
        #expect(missing?.description.contains("404") == true)
    }

    @Test("contacts round trip: post, get, put, get, delete, then 404")
    func contactsRoundTrip() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let email = "\(ServiceStubs.uniqueUser("contact"))@example.com"
        let mark = try ServiceStubs.logMark()
        let created = try await client.post("/contacts", body: ["DisplayName": "Round Trip", "PrimaryEmail": .string(email),
                                                                "GivenName": "Round", "Tags": ["streamplay"]])
        let id = try #require(created.first?["Id"]?.string)
        #expect(created.first?["ResourceUri"]?.string == "/v1/contacts/\(id)")
        let post = try #require(try SparkTesting.requests(to: "/v1/contacts", after: mark).first)
        let sent = try #require(post["json"] as? [String: Any])
        #expect((sent["D"] as? [String: Any])?["PrimaryEmail"] as? String == email, "the body goes as {\"D\": {...}}")
        #expect((post["headers"] as? [String: Any])?["Content-Type"] as? String == "application/json")
        #expect(post["status"] as? Int == 201)
        let fetched = try await client.get("/v1/contacts/\(id)")
        #expect(fetched.first?["PrimaryEmail"]?.string == email && fetched.first?["Tags"] == ["streamplay"])
        let updated = try await client.put("/contacts/\(id)", body: ["FamilyName": "Trip", "DisplayName": "Round Trip II"])
        #expect(updated.isEmpty)
        let after = try await client.get("/contacts/\(id)")
        #expect(after.first?["FamilyName"]?.string == "Trip" && after.first?["DisplayName"]?.string == "Round Trip II")
        let all = try await client.api(.get, "/contacts")
        #expect(all.contains { $0["Id"]?.string == id })
        _ = try await client.delete("/contacts/\(id)")
        let gone = await SparkTesting.error { () async throws(SparkError) in try await client.get("/contacts/\(id)") }
        #expect(gone?.code == 404)
    }

    @Test("listings pagination: _pagination=1 gives Pagination; pages follow")
    func listingsPagination() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let first = try await client.apiResponse(.get, "/listings", parameters: ["_limit": "2", "_pagination": "1"])
        #expect(first.results.count == 2 && first.status == 200)
        #expect(first.pagination == SparkPagination(totalRows: 3, pageSize: 2, totalPages: 2, currentPage: 1))
        #expect(first.pagination?.hasNextPage == true)
        let second = try await client.apiResponse(.get, "/listings", parameters: ["_limit": "2", "_page": "2", "_pagination": "1"])
        #expect(second.results.count == 1 && second.pagination?.currentPage == 2 && second.pagination?.hasNextPage == false)
        let ids = (first.results + second.results).compactMap { $0["Id"]?.string }
        #expect(Set(ids).count == 3)
        let plain = try await client.apiResponse(.get, "/listings")
        #expect(plain.pagination == nil && plain.results.count == 3)
        let listing = try await client.get("/listings/\(ids[0])")
        #expect(listing.first?["StandardFields"]?["ListingKey"]?.string == ids[0])
    }

    // MARK: Session renewal

    @Test("1020 once: refresh once, replay, success; a really expired token too")
    func renewalOnce() async throws {
        let client = try SparkTesting.client()
        let user = ServiceStubs.uniqueUser("spark-renew")
        _ = try await SparkTesting.signIn(client, user: user)
        let before = try #require(await client.oauth.currentToken)
        let mark = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 401, path: "/v1/my/account", sparkCode: 1020)
        _ = try await client.account()
        let calls = try SparkTesting.requests(to: "/v1/my/account", after: mark).map { $0["status"] as? Int }
        #expect(calls == [401, 200])
        #expect(try SparkTesting.grants(after: mark, "refresh_token").count == 1)
        let after = try #require(await client.oauth.currentToken)
        #expect(after.accessToken != before.accessToken && after.refreshToken != before.refreshToken)
        // The stub's own 1020 for an expired token renews the same way.
        let mark2 = try ServiceStubs.logMark()
        #expect(try await ServiceStubs.expireTokens(.spark, user: user) >= 1)
        _ = try await client.get("/listings")
        let statuses = try SparkTesting.requests(to: "/v1/listings", after: mark2).map { $0["token_status"] as? String }
        #expect(statuses == ["expired", "valid"])
        #expect(try SparkTesting.grants(after: mark2, "refresh_token").count == 1)
    }

    @Test("concurrent calls on an expired session share one refresh (refresh tokens are single-use)")
    func singleFlightRefresh() async throws {
        let client = try SparkTesting.client()
        let user = ServiceStubs.uniqueUser("spark-single")
        _ = try await SparkTesting.signIn(client, user: user)
        let mark = try ServiceStubs.logMark()
        #expect(try await ServiceStubs.expireTokens(.spark, user: user) >= 1)
        async let first = client.account()
        async let second = client.get("/listings")
        async let third = client.get("/contacts")
        let (account, listings, contacts) = try await (first, second, third)
        #expect(!account.id.isEmpty && listings.count == 3 && !contacts.isEmpty)
        #expect(try SparkTesting.grants(after: mark, "refresh_token").count == 1, "one refresh for three calls")
        #expect(await client.isAuthenticated)
    }

    @Test("plain OAuth 2 with a redirect URI given per request (the CLI's loopback listener)")
    func authorizationRedirectOverride() async throws {
        let listener = try LoopbackRedirectListener()
        let client = try SparkTesting.client()
        let request = client.makeAuthorizationRequest(redirectURI: listener.redirectURI)
        #expect(request.redirectURI == listener.redirectURI)
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url)
        try await client.completeAuthorization(request, redirect: try await redirect)
        #expect(try await client.account().name == "StreamPlay Tester")
    }

    @Test("1020 twice: one refresh, then the second 1020 is the error (no loop); 1000 is not renewed")
    func renewalNoLoop() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let mark = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 401, count: 2, path: "/v1/my/account", sparkCode: 1020)
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error == .api(code: 1020, message: "Session token has expired", status: 401))
        #expect(try SparkTesting.grants(after: mark).count == 1, "exactly one refresh")
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark).count == 2)
        #expect(await client.isAuthenticated, "the session survives")
        _ = try await client.account()
        let mark2 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 401, path: "/v1/my/account", sparkCode: 1000)
        let invalid = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(invalid?.code == 1000)
        #expect(try SparkTesting.grants(after: mark2).isEmpty, "401 1000 is not a renewal case")
    }

    @Test("refresh rotates the refresh token; the old one is dead; the session is stored")
    func refreshRotation() async throws {
        let store = InMemoryTokenStore()
        let client = try SparkTesting.client(store: store)
        let (_, returnURL) = try await SparkTesting.signIn(client)
        let first = try #require(await client.oauth.currentToken)
        let mark = try ServiceStubs.logMark()
        let second = try await client.refresh()
        let refresh = try #require(try SparkTesting.grants(after: mark, "refresh_token").first)
        #expect((refresh["json"] as? [String: Any])?["redirect_uri"] as? String == SparkTesting.queryValue("openid.return_to", in: returnURL),
                "a refresh repeats the sign-in's redirect URI")
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
        #expect(try store.load(account: "spark") == second)
        _ = try await client.account()
        let old = try await SparkTesting.rawRefresh(try #require(first.refreshToken))
        #expect(old.status == 400 && old.text.contains("invalid_grant"))
        // A new client on the same store takes the session up and can refresh it.
        let restored = try SparkTesting.client(store: store)
        #expect(await restored.isAuthenticated)
        let mark2 = try ServiceStubs.logMark()
        #expect(try await restored.refresh().refreshToken != second.refreshToken)
        let restoredRefresh = try #require(try SparkTesting.grants(after: mark2, "refresh_token").first)
        #expect((restoredRefresh["json"] as? [String: Any])?["redirect_uri"] as? String == SparkTesting.queryValue("openid.return_to", in: returnURL),
                "a restored session repeats the sign-in's redirect URI, stored with the token")
        _ = try await restored.account()
    }

    @Test("invalid_grant on a revoked refresh token ends the session and says so")
    func revokedRefreshEndsSession() async throws {
        let store = InMemoryTokenStore()
        let client = try SparkTesting.client(store: store)
        let user = ServiceStubs.uniqueUser("spark-revoked")
        _ = try await SparkTesting.signIn(client, user: user)
        let events = client.events
        #expect(await client.openIDIdentity != nil)
        #expect(try await ServiceStubs.revokeTokens(.spark, kind: "refresh", user: user) >= 1)
        #expect(try await ServiceStubs.expireTokens(.spark, user: user) >= 1)
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error?.isSessionEnded == true)
        guard case .authorization(.sessionExpired) = error else { Issue.record("expected sessionExpired, got \(String(describing: error))"); return }
        #expect(!(await client.isAuthenticated))
        #expect(try store.load(account: "spark") == nil)
        #expect(await client.openIDIdentity == nil, "the ended session takes the OpenID identity with it")
        // The failed refresh is reported, then the end of the session.
        var iterator = events.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        if case .failedToGetAccessToken(.tokenRequestFailed("invalid_grant", _, 400))? = first {} else {
            Issue.record("expected the failed refresh first, got \(String(describing: first))")
        }
        #expect(second == .authenticationReset)
        let next = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(next == .authorization(.notAuthenticated))
    }

    @Test("an error envelope from the grant endpoint is a typed authorization error; the session survives")
    func grantEnvelopeError() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let before = try #require(await client.oauth.currentToken)
        let events = client.events
        try await ServiceStubs.fail(.spark, status: 503, path: "/v1/oauth2/grant", retryAfter: 0)
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.refresh() }
        guard case .authorization(.invalidResponse(let reason, 503))? = error else {
            Issue.record("expected invalidResponse with HTTP 503, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("code 1510") && reason.contains("The API is temporarily unavailable."), "\(reason)")
        #expect(error?.isSessionEnded == false)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .failedToGetAccessToken(.invalidResponse(reason: reason, status: 503)))
        #expect(await client.oauth.currentToken == before, "the session is kept")
        #expect(try await client.refresh().accessToken != before.accessToken, "and renews once Spark is back")
    }
}
