import Foundation
import StreamPlay
@testable import StreamPlayServices
import StreamPlayTesting
import Testing

/// Whether a sign-in sends a PKCE challenge: always without a swap service; through one only
/// when the configuration says it forwards `code_verifier`.
@Suite("Spotify swap service and PKCE, in memory")
struct SpotifySwapPKCEUnitTests {
    static func request(swap: Bool, forwards: Bool) async throws -> AuthorizationRequest {
        var configuration = FakeSpotify().configuration
        if swap {
            configuration.tokenSwapURL = "https://swap.example.test/swap"
            configuration.tokenRefreshURL = "https://swap.example.test/refresh"
        }
        configuration.tokenSwapForwardsCodeVerifier = forwards
        return try await SpotifyClient(configuration: configuration, http: InMemoryHTTPTransport()).makeAuthorizationRequest()
    }

    @Test("without a swap service the challenge is sent; with a seed-style one it is not; with a forwarding one it is")
    func challenge() async throws {
        for (swap, forwards, expected) in [(false, false, true), (true, false, false), (true, true, true)] {
            let request = try await Self.request(swap: swap, forwards: forwards)
            #expect(request.sendsCodeChallenge == expected, "swap \(swap), forwards \(forwards)")
            #expect(request.url.contains("code_challenge=") == expected)
            #expect(request.url.contains("state="), "state is always sent")
        }
    }

    @Test("a sign-in without a challenge sends no code_verifier with the code")
    func noVerifier() async throws {
        let fake = FakeSpotify()
        var configuration = fake.configuration
        configuration.tokenSwapURL = "https://swap.example.test/swap"
        let client = SpotifyClient(configuration: configuration, http: fake.transport)
        let request = try await client.makeAuthorizationRequest()
        fake.transport.route(.post, host: "swap.example.test", path: "/swap") { request in
            .json(["access_token": "at-swapped-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "swp_1"], for: request)
        }
        let redirect = "http://127.0.0.1:8765/callback?code=c0de&state=\(request.state)"
        try await client.completeAuthorization(request, redirect: redirect)
        let exchange = try #require(fake.transport.requests(toHost: "swap.example.test").first)
        #expect(exchange.formValue("code") == "c0de")
        #expect(exchange.formValue("code_verifier") == nil)
    }

    @Test("swap_forwards_code_verifier is read from the environment; anything but true or false is refused in the file")
    func setting() throws {
        let environment = ["STREAMPLAY_SPOTIFY_CLIENT_ID": "id", "STREAMPLAY_SPOTIFY_SWAP_FORWARDS_CODE_VERIFIER": "true"]
        let settings = try ServiceSettings.load(environment: environment, configFile: "/nonexistent/streamplay-config.json")
        #expect(try settings.requireConfigured(.spotify).tokenSwapForwardsCodeVerifier)
        #expect(!ServiceConfiguration.defaults(for: .spotify).tokenSwapForwardsCodeVerifier)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("streamplay-swap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func load(_ value: String) throws(ServiceSettingsError) -> ServiceSettings {
            let path = directory.appendingPathComponent("config-\(UUID().uuidString).json").path
            _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"spotify": {"client_id": "id", "swap_forwards_code_verifier": \#(value)}}"#.utf8))
            return try ServiceSettings.load(environment: [:], configFile: path)
        }
        #expect(try load("true").requireConfigured(.spotify).tokenSwapForwardsCodeVerifier)
        #expect(try load(#""true""#).requireConfigured(.spotify).tokenSwapForwardsCodeVerifier)
        #expect(try !load("false").requireConfigured(.spotify).tokenSwapForwardsCodeVerifier)
        #expect(throws: ServiceSettingsError.self) { try load(#""yes""#) }
        #expect(throws: ServiceSettingsError.self) { try load("1") }
    }
}
