import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// No token, client secret, code or CDN signature in the log, an error or a description.
    @Suite("SoundCloud secrets kept out of logs and descriptions")
    struct Redaction {
        @Test("no token, secret, code or CDN signature in logs or error descriptions")
        func redaction() async throws {
            let start = CapturingLogHandler.lines.withEngineLock { $0.count }
            let logger = CapturingLogHandler.logger()
            let listener = try LoopbackRedirectListener()
            let client = try SoundCloudTesting.client(redirectURI: listener.redirectURI, logger: logger)
            let request = await client.oauth.makeAuthorizationRequest()
            async let redirect = listener.waitForRedirect(timeout: 20)
            let user = ServiceStubs.uniqueUser("sc-redact")
            try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
            let redirectURL = try await redirect
            try await client.oauth.completeAuthorization(request, redirect: redirectURL)
            let code = try #require(SoundCloudTesting.queryField("code", of: redirectURL))
            var secrets = [code, request.pkce.verifier, try ServiceStubs.value(.soundcloud, "CLIENT_SECRET")]
            let first = try #require(await client.oauth.currentToken)
            secrets += [first.accessToken, try #require(first.refreshToken)]
            _ = try await client.me()
            let stream = try await client.stream(forTrack: "1001")
            let signature = try #require(SoundCloudTesting.queryField("Signature", of: stream.url))
            secrets.append(signature)
            #expect(try await ServiceStubs.expireTokens(.soundcloud, user: user) >= 1)
            _ = try await client.me()
            let second = try #require(await client.oauth.currentToken)
            secrets += [second.accessToken, try #require(second.refreshToken)]
            let track = SoundCloudTesting.syntheticTrack()
            try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: "/tracks/soundcloud:tracks:\(track)", retryAfter: 0)
            _ = try await client.stream(forTrack: String(track))
            var descriptions = [stream.description, String(describing: second), client.configuration.description]
            for error in [await SoundCloudTesting.failure({ try await client.track("999999") }),
                          await SoundCloudTesting.failure({ try await client.request(.get, stream.url).response }),
                          await SoundCloudTesting.failure({ try await client.track("999998") })] {
                descriptions.append(String(describing: try #require(error)))
            }
            #expect(try await ServiceStubs.revokeTokens(.soundcloud, kind: "all", user: user) >= 2)
            descriptions.append(String(describing: try #require(await SoundCloudTesting.failure { try await client.me() })))
            let lines = CapturingLogHandler.lines.withEngineLock { Array($0.dropFirst(start)) }
            #expect(lines.contains { $0.contains("retrying") }, "the retry was logged")
            for secret in secrets {
                #expect(!lines.contains { $0.contains(secret) }, "a secret reached the log")
                #expect(!descriptions.contains { $0.contains(secret) }, "a secret reached an error or description")
            }
        }

        @Test("a response's description, debug description and dump show no header or body (no CDN signature)")
        func responseDescription() async throws {
            let client = try await SoundCloudTesting.appClient()
            let rendition = try #require(try await client.streams(forTrack: "1001").renditions["http_mp3_128"])
            let response = try await client.request(.get, rendition).fullResponse
            #expect(response.status == 302)
            let location = try #require(response.headers["Location"])
            let signature = try #require(SoundCloudTesting.queryField("Signature", of: location))
            var dumped = ""
            dump(response, to: &dumped)
            for text in [String(describing: response), String(reflecting: response), dumped, "\(response)"] {
                #expect(!text.contains(signature), "\(text)")
                #expect(!text.contains("Signature") && !text.contains("Location"), "\(text)")
            }
            #expect(String(describing: response).contains("HTTP 302"))
            #expect(String(describing: response).contains("\(response.body.count) bytes"))
        }
    }
}
