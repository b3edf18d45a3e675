import Foundation
import StreamPlay
import StreamPlayTesting
import Testing
@testable import StreamPlayServices

/// The Spotify stand-in's answers that the tests rely on (Track, User, playback state,
/// devices), checked against the Web API objects in ``SpotifyWebAPISchema``: a stand-in that
/// drifts from Spotify's published shapes fails here, and the client reads what it answers.
@Suite("Spotify stand-in answers against the Web API schema", .serialized, .needsTestServers)
struct SpotifySchemaTests {
    /// GETs `path` under the API with the client's token and returns the JSON body.
    static func answer(_ client: SpotifyClient, _ path: String) async throws -> JSON {
        let token = try await client.oauth.accessToken()
        let response = try await CurlHTTPClient().send(HTTPRequest(url: client.configuration.apiURL(path),
                                                                   headers: ["Authorization": "Bearer \(token)"]))
        try #require(response.status == 200, "\(path): HTTP \(response.status)")
        return try JSON(parsing: response.body)
    }

    @Test("Track, User (with and without the private fields), devices and the playback state conform")
    func standInAnswers() async throws {
        let scopes = ["user-read-private", "user-read-email", "user-read-playback-state", "user-modify-playback-state"]
        let client = try await SpotifyTesting.signedIn(.confidential, scopes: scopes)
        for id in [SpotifyTesting.previewTrack, SpotifyTesting.noPreviewTrack] {
            let track = try await Self.answer(client, "/tracks/\(id)")
            #expect(SpotifyWebAPISchema.track.violations(of: track, at: "track").isEmpty,
                    "\(SpotifyWebAPISchema.track.violations(of: track, at: "track"))")
        }
        let me = try await Self.answer(client, "/me")
        #expect(SpotifyWebAPISchema.user.violations(of: me, at: "me").isEmpty, "\(SpotifyWebAPISchema.user.violations(of: me, at: "me"))")
        #expect(try await client.me().id == me["id"]?.string)

        let devices = try await Self.answer(client, "/me/player/devices")
        #expect(SpotifyWebAPISchema.devices.violations(of: devices).isEmpty, "\(SpotifyWebAPISchema.devices.violations(of: devices))")
        try await client.play(uris: ["spotify:track:\(SpotifyTesting.previewTrack)"], deviceID: SpotifyTesting.computer)
        let state = try await Self.answer(client, "/me/player")
        #expect(SpotifyWebAPISchema.playbackState.violations(of: state, at: "player").isEmpty,
                "\(SpotifyWebAPISchema.playbackState.violations(of: state, at: "player"))")
        #expect(try await client.playbackState()?.track?.id == SpotifyTesting.previewTrack)
        try await client.setPlaying(false)
    }
}
