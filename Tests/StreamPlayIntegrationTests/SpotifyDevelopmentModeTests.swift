import Foundation
import StreamPlay
import StreamPlayTesting
import Testing
@testable import StreamPlayServices

/// Spotify's February 2026 Development Mode rules over a real socket: the client against the
/// stand-in's Development Mode app (scripts/service-stubs.py), whose answers are held to
/// ``SpotifyWebAPISchema``. The same rules against the in-memory fake are in the services unit
/// tests; here the stand-in enforces them, so a client that broke them would be refused.
@Suite("Spotify Development Mode against the stand-in", .serialized, .needsTestServers)
struct SpotifyDevelopmentModeStandInTests {
    static let scopes = ["user-read-private", "user-read-email", "user-read-playback-state"]

    /// GETs `path` under the API with the client's token: the status and the JSON body.
    static func answer(_ client: SpotifyClient, _ path: String) async throws -> (Int, JSON) {
        let token = try await client.oauth.accessToken()
        let response = try await CurlHTTPClient().send(HTTPRequest(url: client.configuration.apiURL(path),
                                                                   headers: ["Authorization": "Bearer \(token)"]))
        return (response.status, try JSON(parsing: response.body))
    }

    /// The Web API requests to `pathPrefix` logged since `mark`.
    static func apiRequests(after mark: Int, to pathPrefix: String) throws -> [[String: Any]] {
        try SpotifyTesting.log(after: mark, host: "api").filter { ($0["path"] as? String ?? "").hasPrefix(pathPrefix) }
    }

    @Test("/me has none of country, email, explicit_content, followers, product, even with the scopes; it conforms and reads as a normal user")
    func smallerMe() async throws {
        let client = try await SpotifyTesting.signedIn(.developmentModeApp, scopes: Self.scopes)
        let (status, me) = try await Self.answer(client, "/me")
        #expect(status == 200)
        #expect(SpotifyWebAPISchema.user.violations(of: me, at: "me").isEmpty, "\(SpotifyWebAPISchema.user.violations(of: me, at: "me"))")
        for member in ["country", "email", "explicit_content", "followers", "product"] {
            #expect(me[member] == nil, "a Development Mode app's /me has no \(member)")
        }
        let user = try await client.me()
        #expect(user.id == me["id"]?.string && user.product == nil && user.email == nil && user.country == nil)
        #expect(user.isPremium == nil, "unknown, not false")

        // The same user through the app in extended quota mode still gets them: the stand-in
        // tells the two apps apart, as Spotify does.
        let extended = try await SpotifyTesting.signedIn(.confidential, scopes: Self.scopes)
        #expect(try await extended.me().product == "premium")
    }

    @Test("search: the answer conforms, 10 results at most (more is a typed error before any request), 5 by default")
    func search() async throws {
        let client = try await SpotifyTesting.signedIn(.developmentModeApp, scopes: Self.scopes)
        let (status, raw) = try await Self.answer(client, "/search?q=track&type=track&limit=10")
        #expect(status == 200)
        #expect(SpotifyWebAPISchema.trackSearch.violations(of: raw, at: "search").isEmpty,
                "\(SpotifyWebAPISchema.trackSearch.violations(of: raw, at: "search"))")
        // The check can fail: an answer whose paging object lost its shape is caught.
        let broken: JSON = ["tracks": ["items": "none", "limit": "10"]]
        #expect(SpotifyWebAPISchema.trackSearch.violations(of: broken, at: "search").count >= 2)
        for item in raw["tracks"]?["items"]?.array ?? [] {
            #expect(item["popularity"] == nil, "Development Mode tracks have no popularity")
        }
        // The stand-in refuses what Spotify refuses: limit 11 from this app.
        let (refused, error) = try await Self.answer(client, "/search?q=track&type=track&limit=11")
        #expect(refused == 400 && error["error"]?["message"]?.string == "Invalid limit")

        let mark = try ServiceStubs.logMark()
        await #expect(throws: SpotifyError.searchLimitTooLarge(requested: 11, maximum: 10)) {
            try await client.searchTracks("track", limit: 11)
        }
        #expect(try Self.apiRequests(after: mark, to: "/v1/search").isEmpty, "nothing sent for limit 11")
        let ten = try await client.searchTracks("track", limit: 10)
        #expect(Set(ten.map(\.id)) == [SpotifyTesting.previewTrack, SpotifyTesting.noPreviewTrack])
        let found = try await client.searchTracks("no preview")
        #expect(found.map(\.id) == [SpotifyTesting.noPreviewTrack], "every word must match")
        let sent = try Self.apiRequests(after: mark, to: "/v1/search")
        #expect(sent.count == 2 && sent.allSatisfy { $0["status"] as? Int == 200 })
        #expect(sent.last?["search_limit"] as? Int == 5, "the default limit: \(sent.last ?? [:])")
        #expect(sent.allSatisfy { $0["app_mode"] as? String == "development" })
    }

    @Test("a track conforms without popularity and external_ids, and reads")
    func track() async throws {
        let client = try await SpotifyTesting.signedIn(.developmentModeApp, scopes: Self.scopes)
        let (status, raw) = try await Self.answer(client, "/tracks/\(SpotifyTesting.previewTrack)")
        #expect(status == 200)
        #expect(SpotifyWebAPISchema.track.violations(of: raw, at: "track").isEmpty, "\(SpotifyWebAPISchema.track.violations(of: raw, at: "track"))")
        #expect(raw["popularity"] == nil && raw["external_ids"] == nil)
        #expect(try await client.track(SpotifyTesting.previewTrack).name == "Preview Track")
    }

    @Test("429 QUOTA_EXCEEDED is a quotaExceeded error after one request; a plain 429 is retried")
    func quotaExceeded() async throws {
        let client = try await SpotifyTesting.signedIn(.developmentModeApp, scopes: Self.scopes)
        let mark = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spotify, status: 429, path: "/v1/search", retryAfter: 0, reason: "QUOTA_EXCEEDED")
        guard let error = await SpotifyTesting.error({ try await client.searchTracks("track") }) else { return }
        guard case .quotaExceeded = error else {
            Issue.record("expected quotaExceeded, got \(error)")
            return
        }
        #expect(try Self.apiRequests(after: mark, to: "/v1/search").count == 1, "not retried")

        let again = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spotify, status: 429, path: "/v1/search", retryAfter: 0)
        #expect(try await client.searchTracks("track").count == 2)
        let sent = try Self.apiRequests(after: again, to: "/v1/search")
        #expect(sent.map { $0["status"] as? Int } == [429, 200], "an ordinary rate limit is retried: \(sent)")
    }

    @Test("endpoints the rules removed answer 404 or 403, and the client names the restriction")
    func removedEndpoints() async throws {
        let client = try await SpotifyTesting.signedIn(.developmentModeApp, scopes: Self.scopes)
        let cases: [(path: String, query: [(String, String)], status: Int, names: String)] = [
            ("/recommendations", [("seed_tracks", SpotifyTesting.previewTrack)], 404, "2024-11-27"),
            ("/audio-features/\(SpotifyTesting.previewTrack)", [], 403, "2024-11-27"),
            ("/playlists/37i9dQZF1DXcBWIGoYBM5M/tracks", [], 403, "/items"),
            ("/tracks", [("ids", "\(SpotifyTesting.previewTrack),\(SpotifyTesting.noPreviewTrack)")], 403, "each id"),
            ("/users/someone", [], 403, "/me"),
        ]
        for entry in cases {
            do throws(SpotifyError) {
                _ = try await client.request(.get, entry.path, query: entry.query)
                Issue.record("\(entry.path): expected an error")
            } catch {
                guard case .endpointRemoved(let endpoint, let restriction, let status) = error else {
                    Issue.record("\(entry.path): expected endpointRemoved, got \(error)")
                    continue
                }
                #expect(endpoint == "GET \(entry.path)" && status == entry.status, "\(error)")
                #expect(restriction.contains(entry.names), "\(entry.path): \(restriction)")
            }
        }
        // What is still there answers as before.
        #expect(try await client.track(SpotifyTesting.noPreviewTrack).previewURL == nil)
    }
}
