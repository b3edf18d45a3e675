import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// SparkClient against FakeSpark.
@Suite("SparkClient, in memory")
struct SparkClientTests {
    static func signedIn(_ fake: FakeSpark) async throws -> SparkClient {
        let client = SparkClient(configuration: fake.configuration, http: fake.transport, userAgent: "StreamPlayTests/1")
        await client.setRetryPolicy(ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0, maximumDelay: 5))
        let request = client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("the grant is JSON with the client's credentials and the user agent; the account comes out of the envelope")
    func account() async throws {
        let fake = FakeSpark()
        let client = try await Self.signedIn(fake)
        let account = try await client.account()
        #expect(account.name == "StreamPlay Tester" && account.primaryEmail == "streamplay-tester@example.com")
        #expect(account.userType == "Member")
        let requests = fake.transport.requests(toHost: FakeSpark.apiHost)
        #expect(requests.map(\.path) == ["/v1/oauth2/grant", "/v1/my/account"])
        #expect(requests.allSatisfy { $0.headers["X-SparkApi-User-Agent"] == "StreamPlayTests/1" })
        let grant = try JSON(parsing: requests[0].bodyBytes)
        #expect(grant["client_id"]?.string == FakeSpark.clientID && grant["grant_type"]?.string == "authorization_code")
        #expect(requests[1].authorizationScheme == "OAuth")
    }

    @Test("code 1020 renews the session once (the rotated refresh token kept) and replays the call")
    func sessionExpired() async throws {
        let fake = FakeSpark()
        let client = try await Self.signedIn(fake)
        let refresh = await client.oauth.currentToken?.refreshToken
        fake.expireAccessTokens()
        let contacts = try await client.get("/contacts")
        #expect(contacts.first?["DisplayName"]?.string == "Jane Client")
        #expect(fake.tokensIssued(grantType: "refresh_token") == 1)
        #expect(await client.oauth.currentToken?.refreshToken != refresh)
        let renewal = try #require(fake.transport.requests.first { $0.path == "/v1/oauth2/grant"
            && (try? JSON(parsing: $0.bodyBytes))?["grant_type"]?.string == "refresh_token" })
        #expect((try JSON(parsing: renewal.bodyBytes))["redirect_uri"]?.string == "http://127.0.0.1:8765/callback")
    }

    @Test("a write goes as {\"D\": ...} and answers 201 with the new resource")
    func createContact() async throws {
        let fake = FakeSpark()
        let client = try await Self.signedIn(fake)
        let results = try await client.post("/contacts", body: ["DisplayName": "New Client", "PrimaryEmail": "new@example.com"])
        #expect(results.first?["ResourceUri"]?.string?.hasPrefix("/v1/contacts/") == true)
        #expect(fake.storedContacts.count == 2 && fake.storedContacts.last?["DisplayName"]?.string == "New Client")
        await #expect(throws: SparkError.api(code: 1050, message: "DisplayName and PrimaryEmail are required", status: 400)) {
            try await client.post("/contacts", body: ["DisplayName": "No Mail"])
        }
    }

    @Test("an over-rate-limit envelope is retried; a missing resource is code 404")
    func errors() async throws {
        let fake = FakeSpark()
        let client = try await Self.signedIn(fake)
        fake.failNext(2, status: 503, code: 1550, message: "Over rate limit", retryAfter: 0, pathPrefix: "/v1/my/")
        #expect(try await client.account().name == "StreamPlay Tester")
        #expect(fake.transport.requests.filter { $0.path == "/v1/my/account" }.count == 3)
        await #expect(throws: SparkError.api(code: 404, message: "Not Found", status: 404)) {
            try await client.get("/listings/nothing")
        }
    }

    @Test("a request without X-SparkApi-User-Agent is refused with code 1016")
    func userAgentRequired() async throws {
        let fake = FakeSpark()
        let response = try await fake.transport.send(HTTPRequest(url: "https://sparkapi.com/v1/my/account"))
        #expect(response.status == 400)
        #expect((try JSON(parsing: response.body))["D"]?["Code"]?.int == 1016)
    }
}
