import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

/// Token swap services and PKCE, against the Spotify stand-in: a swap service in the seed's
/// style forwards only `code`, and Spotify refuses a code issued for a challenge without its
/// verifier; so the client sends a challenge only when the configuration says the service
/// forwards `code_verifier`.
@Suite("Spotify token swap and PKCE", .serialized, .needsTestServers)
struct SpotifySwapPKCETests {
    static func exchange(after mark: Int) throws -> [String: Any] {
        let swap = try SpotifyTesting.log(after: mark, host: "swap")
        return try #require(swap.first { ($0["path"] as? String)?.hasPrefix("/swap") == true })
    }

    static func query(_ url: String) -> [String: String] {
        Dictionary(FormEncoding.decode(url.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""), uniquingKeysWith: { $1 })
    }

    @Test("a seed-style swap service (only code forwarded): no challenge is sent, and the exchange succeeds")
    func seedStyleSwap() async throws {
        let configuration = try SpotifyTesting.configuration(.swapService, redirectURI: "http://127.0.0.1:9/callback")
        #expect(!configuration.tokenSwapForwardsCodeVerifier)
        let request = try await SpotifyClient(configuration: configuration).makeAuthorizationRequest()
        #expect(!request.sendsCodeChallenge)
        #expect(Self.query(request.url)["code_challenge"] == nil && Self.query(request.url)["code_challenge_method"] == nil)

        let mark = try ServiceStubs.logMark()
        let user = ServiceStubs.uniqueUser("sp-swap-seed")
        let client = try await SpotifyTesting.signedIn(.swapService, user: user)
        let exchange = try Self.exchange(after: mark)
        #expect(exchange["path"] as? String == "/swap" && exchange["status"] as? Int == 200)
        #expect((exchange["form"] as? [String: Any])?["code_verifier"] == nil, "no verifier without a challenge")
        #expect(try await client.me().displayName == user)
    }

    @Test("a swap service that forwards code_verifier: the challenge is sent, the verifier goes with the code, and Spotify accepts it")
    func forwardingSwap() async throws {
        let configuration = try SpotifyTesting.configuration(.swapServiceForwardingVerifier, redirectURI: "http://127.0.0.1:9/callback")
        let request = try await SpotifyClient(configuration: configuration).makeAuthorizationRequest()
        #expect(Self.query(request.url)["code_challenge_method"] == "S256")
        #expect(Self.query(request.url)["code_challenge"] == request.pkce.challenge)

        let mark = try ServiceStubs.logMark()
        let user = ServiceStubs.uniqueUser("sp-swap-pkce")
        let client = try await SpotifyTesting.signedIn(.swapServiceForwardingVerifier, user: user)
        let exchange = try Self.exchange(after: mark)
        #expect(exchange["path"] as? String == "/swap-pkce" && exchange["status"] as? Int == 200)
        #expect((exchange["form"] as? [String: Any])?["code_verifier"] as? String == "[redacted]", "sent, and never logged in clear")
        #expect(try await client.me().displayName == user)
    }

    @Test("a challenge through a swap service that drops code_verifier fails at the exchange, as the seed's service does")
    func droppedVerifierFails() async throws {
        let mark = try ServiceStubs.logMark()
        let error = await SpotifyTesting.error { try await SpotifyTesting.signedIn(.swapServiceMisconfigured) }
        #expect(error.map { "\($0)".contains("code_verifier") } == true, "\(String(describing: error))")
        let exchange = try Self.exchange(after: mark)
        #expect(exchange["path"] as? String == "/swap" && exchange["status"] as? Int == 400)
    }
}
