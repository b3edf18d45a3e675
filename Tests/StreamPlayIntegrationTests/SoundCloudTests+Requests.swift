import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// The general request method (paths, full API URLs, parameters, form bodies, never the token
    /// off the API's host) and SoundCloud's error bodies, typed.
    @Suite("SoundCloud requests and error bodies")
    struct Requests {
        @Test("the general request method: paths, full API URLs, parameters, form bodies; always the OAuth scheme")
        func generalRequests() async throws {
            let user = ServiceStubs.uniqueUser("sc-request")
            let client = try await SoundCloudTesting.signedIn(as: user)
            let mark = try ServiceStubs.logMark()
            #expect(try await client.request(.get, "me").response["username"]?.string == user)
            let api = try ServiceStubs.value(.soundcloud, "API_URL")
            #expect(try await client.request(.get, "\(api)/tracks/1001").response["urn"]?.string == "soundcloud:tracks:1001")
            let resolved = try await client.request(.get, "/resolve", parameters: [("url", "https://soundcloud.com/stub-artist")]).response
            #expect(resolved["username"]?.string == "stub-artist")
            let created = try await client.request(.post, "/me/connections", parameters: [
                ("service", "tumblr"), ("redirect_uri", "https://streamplay.example/connected")]).fullResponse
            #expect(created.status == 202 && created.json["authorize_url"]?.string != nil)
            let entries = try SoundCloudTesting.entries(after: mark, host: "api")
            #expect(entries.count == 5, "/me, /tracks, /resolve + its redirect, POST: \(entries.map { $0["path"] ?? "" })")
            #expect(entries.allSatisfy { $0["auth"] as? String == "OAuth" }, "\(entries.map { $0["auth"] ?? "" })")
            #expect(entries.last?["form"] as? [String: String] == ["service": "tumblr", "redirect_uri": "https://streamplay.example/connected"])
            // A full URL off the API's host never receives the token.
            let before = try ServiceStubs.logMark()
            let cdn = try ServiceStubs.value(.soundcloud, "CDN_URL")
            guard case .invalidRequest? = await SoundCloudTesting.failure({ try await client.request(.get, "\(cdn)/media/1001").response }) else {
                Issue.record("a request to another host was made")
                return
            }
            #expect(try ServiceStubs.logMark() == before)
        }

        @Test("error bodies are parsed: 404 not found, 422 with the problems by field")
        func typedErrorBodies() async throws {
            let client = try await SoundCloudTesting.signedIn()
            guard case .notFound(let body)? = await SoundCloudTesting.failure({ try await client.track("999999") }) else {
                Issue.record("expected notFound")
                return
            }
            #expect(body.status == 404 && body.code == 404 && body.message == "Track not found")
            #expect(body.statusText == "404 - Not Found")
            let error = await SoundCloudTesting.failure { try await client.createConnection(service: "bogus", redirectURI: "relative/path") }
            guard case .api(let invalid)? = error else {
                Issue.record("expected a 422, got \(String(describing: error))")
                return
            }
            #expect(invalid.status == 422 && invalid.statusText == "422 - Unprocessable Entity")
            #expect(Set(invalid.errors.compactMap(\.field)) == ["service", "redirect_uri"])
            #expect(error?.description.contains("service") == true)
        }
    }
}
