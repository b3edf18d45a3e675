import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

// The ID token that comes with a refresh of an OpenID Connect session, against the stand-in
// (scripts/service_stubs_spark.py): verified as OpenID Connect Core 1.0 §12.2 says and kept with
// the session, or, when it fails, a typed error and no session.

extension SparkTests {
    /// A signed-in OpenID Connect client of a fresh user with an in-memory store.
    static func refreshedSession() async throws -> (SparkClient, InMemoryTokenStore, String, IDToken) {
        let store = InMemoryTokenStore()
        let client = try SparkTesting.client(store: store)
        let user = ServiceStubs.uniqueUser("refresh-id")
        let (idToken, _) = try await SparkTesting.signInOpenIDConnect(client, user: user)
        return (client, store, user, idToken)
    }

    @Test("a refresh's ID token is verified (no nonce) and kept with the session: same sub, a later iat")
    func refreshedIDTokenKept() async throws {
        let (client, store, _, signIn) = try await Self.refreshedSession()
        let before = try #require(try store.load(account: "spark")?.idToken)
        #expect(signIn.nonce != nil, "the sign-in's token has the request's nonce")
        try await Task.sleep(for: .milliseconds(1100))  // iat counts seconds: a later one differs
        let mark = try ServiceStubs.logMark()
        try await client.refresh()
        let exchange = try #require(try SparkTesting.authLog(after: mark, path: "/openid/token").first)
        #expect(exchange["grant_type"] as? String == "refresh_token" && exchange["status"] as? Int == 200)
        let after = try #require(try store.load(account: "spark")?.idToken)
        #expect(after != before, "the refresh's ID token replaced the sign-in's")
        let kept = try #require(await client.sessionIDToken)
        #expect(kept.subject == signIn.subject && kept.issuer == signIn.issuer && kept.audience == signIn.audience)
        #expect(kept.nonce == nil, "a refresh's token carries no nonce, and none is asked of it")
        #expect((kept.issuedAt ?? .distantPast) > (signIn.issuedAt ?? .distantFuture))
        #expect(await client.openIDIdentity == signIn.subject)
        #expect(try await client.account().id == signIn.subject, "the renewed session works")
    }

    @Test("a refresh without an ID token keeps the sign-in's (12.2 allows it)")
    func refreshWithoutIDToken() async throws {
        let (client, store, user, signIn) = try await Self.refreshedSession()
        let before = try #require(try store.load(account: "spark")?.idToken)
        try await ServiceStubs.control("spark/refresh-id-token", ["user": user, "fault": "missing"])
        try await client.refresh()
        #expect(try store.load(account: "spark")?.idToken == before)
        #expect(await client.sessionIDToken?.subject == signIn.subject)
        #expect(await client.isAuthenticated)
    }

    @Test("a refresh's ID token that fails a check is a typed error; the session and its stored tokens are gone",
          arguments: ["signature", "subject", "audience", "issuer", "expired"])
    func refreshedIDTokenRefused(fault: String) async throws {
        let (client, store, user, signIn) = try await Self.refreshedSession()
        try await ServiceStubs.control("spark/refresh-id-token", ["user": user, "fault": fault])
        let mark = try ServiceStubs.logMark()
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.refresh() }
        let logged = try #require(try SparkTesting.authLog(after: mark, path: "/openid/token").first)
        #expect(logged["id_token_fault"] as? String == fault, "the stand-in sent the faulty token: \(logged)")
        guard case .idToken(let refusal) = error else {
            Issue.record("\(fault): expected SparkError.idToken, got \(String(describing: error))")
            return
        }
        switch (fault, refusal) {
        case ("signature", .badSignature), ("subject", .refreshMismatch(claim: "sub")), ("expired", .expired):
            break
        case ("audience", .wrongAudience(let expected, let found)):
            #expect(expected == "spark-test-client" && found == ["another-client"])
        case ("issuer", .wrongIssuer(let expected, let found)):
            #expect(expected == signIn.issuer && found == signIn.issuer + "/elsewhere")
        default:
            Issue.record("\(fault): the wrong check failed: \(refusal)")
        }
        #expect(!(await client.isAuthenticated), "unproven tokens are no session")
        #expect(try store.load(account: "spark") == nil, "nothing of the session is stored")
        #expect(await client.openIDIdentity == nil)
        #expect(!"\(refusal)".contains("eyJ"), "the error carries no token")
    }

    @Test("an API call whose session renews with a foreign ID token fails with the typed error, not the API's")
    func refreshedIDTokenRefusedDuringCall() async throws {
        let (client, _, user, _) = try await Self.refreshedSession()
        try await ServiceStubs.control("spark/refresh-id-token", ["user": user, "fault": "subject"])
        #expect(try await ServiceStubs.expireTokens(.spark, user: user) >= 1)
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error == .idToken(.refreshMismatch(claim: "sub")))
        #expect(!(await client.isAuthenticated))
    }
}
