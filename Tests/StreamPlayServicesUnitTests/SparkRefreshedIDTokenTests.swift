import Foundation
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// The ID token of a refresh (OpenID Connect Core 1.0 §12.2) against FakeSpark: verified
/// without a nonce, the sign-in's `iss`, `sub` and `aud` required, kept when sound; a typed
/// error and no session when not.
@Suite("Spark refreshed ID tokens, in memory")
struct SparkRefreshedIDTokenTests {
    static func signedIn(_ fake: FakeSpark, store: any TokenStore) async throws -> (SparkClient, IDToken) {
        let client = await SparkOpenIDConnectTests.client(fake, store: store)
        return (client, try await SparkOpenIDConnectTests.signIn(client, fake))
    }

    @Test("a sound refresh ID token (no nonce) replaces the sign-in's, also for a session restored in a later run")
    func kept() async throws {
        let fake = FakeSpark()
        let store = InMemoryTokenStore()
        let (client, signIn) = try await Self.signedIn(fake, store: store)
        #expect(signIn.nonce != nil)
        let before = try #require(try store.load(account: "spark")?.idToken)
        try await client.refresh()
        let kept = try #require(await client.sessionIDToken)
        #expect(kept.subject == signIn.subject && kept.nonce == nil, "the refresh's token, which has no nonce")
        let stored = try #require(try store.load(account: "spark")?.idToken)
        #expect(stored != before, "the store has the refresh's ID token")
        // A later run verifies its refreshes the same way.
        let later = await SparkOpenIDConnectTests.client(fake, store: store)
        fake.spoilIDTokens(.wrongSubject)
        let error = await Self.error { () async throws(SparkError) in try await later.refresh() }
        #expect(error == .idToken(.refreshMismatch(claim: "sub")))
        #expect(!(await later.isAuthenticated))
        #expect(try store.load(account: "spark") == nil)
    }

    @Test("a refresh ID token that fails a check is SparkError.idToken; the session and stored tokens are gone")
    func refused() async throws {
        let cases: [(FakeSpark.IDTokenFault, IDTokenError)] = [
            (.wrongKey, .badSignature),
            (.wrongSubject, .refreshMismatch(claim: "sub")),
            (.wrongAudience, .wrongAudience(expected: FakeSpark.clientID, found: ["another-client"])),
            (.wrongIssuer, .wrongIssuer(expected: FakeSpark.issuer, found: "https://evil.example")),
        ]
        for (fault, expected) in cases {
            let fake = FakeSpark()
            let store = InMemoryTokenStore()
            let (client, _) = try await Self.signedIn(fake, store: store)
            fake.spoilIDTokens(fault)
            let error = await Self.error { () async throws(SparkError) in try await client.refresh() }
            #expect(error == .idToken(expected), "\(fault)")
            #expect(!(await client.isAuthenticated), "\(fault): no session")
            #expect(try store.load(account: "spark") == nil, "\(fault): nothing stored")
            #expect(await client.openIDIdentity == nil)
        }
    }

    @Test("an expired refresh ID token is refused; a refresh with none keeps the sign-in's")
    func expiredAndMissing() async throws {
        let fake = FakeSpark()
        let (client, signIn) = try await Self.signedIn(fake, store: InMemoryTokenStore())
        let before = await client.oauth.currentToken?.idToken
        fake.spoilIDTokens(.missing)
        try await client.refresh()
        #expect(await client.oauth.currentToken?.idToken == before)
        #expect(await client.sessionIDToken?.subject == signIn.subject)
        fake.spoilIDTokens(.expired)
        let error = await Self.error { () async throws(SparkError) in try await client.refresh() }
        guard case .idToken(.expired) = error else {
            Issue.record("expected an expired ID token, got \(String(describing: error))")
            return
        }
        #expect(!(await client.isAuthenticated))
    }

    @Test("a refresh whose ID token cannot be checked now (key set out of reach) keeps the session and the sign-in's token")
    func keysOutOfReach() async throws {
        let fake = FakeSpark()
        let store = InMemoryTokenStore()
        let (_, signIn) = try await Self.signedIn(fake, store: store)
        let before = try #require(try store.load(account: "spark")?.idToken)
        // A later run has no key set yet, and the provider's cannot be fetched (retries too).
        let later = await SparkOpenIDConnectTests.client(fake, store: store)
        fake.transport.failNext(5, status: 503, host: FakeSpark.authHost, pathPrefix: "/.well-known/")
        try await later.refresh()
        #expect(await later.isAuthenticated, "a network failure does not end the session")
        #expect(try store.load(account: "spark")?.idToken == before)
        #expect(await later.sessionIDToken?.subject == signIn.subject)
    }

    @Test("the client's session asks it back to verify without keeping it alive: a dropped client is freed")
    func noRetainCycle() async throws {
        let fake = FakeSpark()
        weak var weakClient: SparkClient?
        do {
            let (client, _) = try await Self.signedIn(fake, store: InMemoryTokenStore())
            try await client.refresh()
            weakClient = client
        }
        #expect(weakClient == nil)
    }

    static func error(_ body: () async throws(SparkError) -> some Any) async -> SparkError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}
