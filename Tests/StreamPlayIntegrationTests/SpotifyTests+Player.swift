import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

// The Spotify client's Connect player calls and its defences against hostile numbers (a file of its own: the suite is long).

extension SpotifyTests {
    // MARK: Player

    @Test("devices, transfer, and no playback state (204) before a device is active")
    func devicesAndTransfer() async throws {
        let client = try await SpotifyTesting.signedIn()
        #expect(try await client.playbackState() == nil)
        #expect(try await client.currentPosition == nil)
        let devices = try await client.devices()
        #expect(devices.map(\.id) == [SpotifyTesting.computer, SpotifyTesting.speaker])
        #expect(devices.map(\.name) == ["StreamPlay Test Computer", "StreamPlay Test Speaker"])
        #expect(devices.map(\.type) == ["Computer", "Speaker"] && devices.allSatisfy { !$0.isActive && $0.volumePercent == 80 })
        let mark = try ServiceStubs.logMark()
        try await client.transfer(to: SpotifyTesting.speaker)
        let put = try #require(try SpotifyTesting.log(after: mark, host: "api").first)
        #expect(put["method"] as? String == "PUT" && put["path"] as? String == "/v1/me/player" && put["status"] as? Int == 204)
        #expect((put["json"] as? [String: Any])?["device_ids"] as? [String] == [SpotifyTesting.speaker])
        let state = try #require(try await client.playbackState())
        #expect(state.device?.id == SpotifyTesting.speaker && state.device?.isActive == true && !state.isPlaying && state.track == nil)
        #expect(try await client.devices().first { $0.isActive }?.id == SpotifyTesting.speaker)
        let missing = await SpotifyTesting.error { try await client.transfer(to: "nope") }
        #expect(missing == .api(status: 404, message: "Device not found", reason: nil))
    }

    @Test("play URIs from an offset at a position; progress advances while playing")
    func playAndProgress() async throws {
        let client = try await SpotifyTesting.signedIn()
        let mark = try ServiceStubs.logMark()
        try await client.play(uris: ["spotify:track:\(SpotifyTesting.previewTrack)", "https://open.spotify.com/track/\(SpotifyTesting.noPreviewTrack)"],
                              offset: .position(1), positionMilliseconds: 5000, deviceID: SpotifyTesting.computer)
        let put = try #require(try SpotifyTesting.log(after: mark, host: "api").first)
        #expect(put["path"] as? String == "/v1/me/player/play" && put["status"] as? Int == 204)
        let player = try #require(put["player"] as? [String: Any])
        #expect(player["queue"] as? [String] == [SpotifyTesting.previewTrack, SpotifyTesting.noPreviewTrack])
        #expect(player["index"] as? Int == 1 && player["position_ms"] as? Int == 5000)
        let first = try #require(try await client.playbackState())
        #expect(first.isPlaying && first.track?.id == SpotifyTesting.noPreviewTrack && first.device?.id == SpotifyTesting.computer)
        #expect(first.trackDurationMilliseconds == 45000)
        let start = try #require(first.progressMilliseconds)
        #expect((5000..<7000).contains(start))
        try await Task.sleep(for: .milliseconds(1200))
        let later = try #require(try await client.playbackState()?.progressMilliseconds)
        #expect(later - start >= 1000 && later - start < 3000, "\(start) -> \(later)")
        #expect(try await client.trackDuration == 45)
        let position = try #require(try await client.currentPosition)
        #expect(position >= Double(later) / 1000 && position < 10)

        try await client.play(uris: ["spotify:track:\(SpotifyTesting.previewTrack)", "spotify:track:\(SpotifyTesting.noPreviewTrack)"],
                              offset: .uri(SpotifyTesting.previewTrack))
        #expect(try await client.playbackState()?.track?.id == SpotifyTesting.previewTrack)
        let bad = await SpotifyTesting.error { try await client.play(uris: ["spotify:track:\(SpotifyTesting.previewTrack)"], offset: .position(3)) }
        #expect(bad == .api(status: 400, message: "Invalid offset position", reason: nil))
    }

    @Test("pause, resume, seek, stop")
    func pauseResumeSeek() async throws {
        let client = try await SpotifyTesting.signedIn()
        try await client.play(uris: [SpotifyTesting.noPreviewTrack], deviceID: SpotifyTesting.speaker)
        try await client.setPlaying(false)
        let paused = try #require(try await client.playbackState())
        #expect(!paused.isPlaying)
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await client.playbackState()?.progressMilliseconds == paused.progressMilliseconds, "paused progress holds")

        let mark = try ServiceStubs.logMark()
        try await client.seek(toMilliseconds: 20000)
        let seek = try #require(try SpotifyTesting.log(after: mark, host: "api").first)
        #expect((seek["query"] as? [String: Any])?["position_ms"] as? String == "20000")
        let sought = try #require(try await client.playbackState())
        #expect(sought.progressMilliseconds == 20000 && !sought.isPlaying, "seeking keeps the paused state")
        try await client.seek(toOffset: 30.5)
        #expect(try await client.currentPosition == 30.5)

        try await client.setPlaying(true)
        let resumed = try #require(try await client.playbackState())
        #expect(resumed.isPlaying && (resumed.progressMilliseconds ?? 0) >= 30500)
        try await client.stop()
        #expect(try await client.playbackState()?.isPlaying == false)
        try await client.stop()  // stopping again is not an error
        let again = await SpotifyTesting.error { try await client.setPlaying(false) }
        guard case .api(403, let message, "UNKNOWN")? = again else { Issue.record("\(String(describing: again))"); return }
        #expect(message.contains("Restriction violated"))
    }

    @Test("a free user gets the typed premium-required error from player commands")
    func premiumRequired() async throws {
        let client = try await SpotifyTesting.signedIn(product: "free")
        #expect(try await client.me().product == "free")
        let error = await SpotifyTesting.error {
            try await client.play(uris: ["spotify:track:\(SpotifyTesting.previewTrack)"], deviceID: SpotifyTesting.computer)
        }
        guard case .premiumRequired(let message)? = error else { Issue.record("expected premiumRequired, got \(String(describing: error))"); return }
        #expect(message.contains("Premium required"))
        await #expect(throws: SpotifyError.self) { try await client.setPlaying(true) }
        #expect(try await client.devices().count == 2, "reading the devices needs no premium")
    }

    @Test("without an active device, commands give the typed no-active-device error")
    func noActiveDevice() async throws {
        let client = try await SpotifyTesting.signedIn()
        let errors = [
            await SpotifyTesting.error { try await client.setPlaying(true) },
            await SpotifyTesting.error { try await client.play(uris: [SpotifyTesting.previewTrack]) },
            await SpotifyTesting.error { try await client.seek(toMilliseconds: 1000) },
        ]
        for error in errors {
            guard case .noActiveDevice(let message)? = error else { Issue.record("expected noActiveDevice, got \(String(describing: error))"); continue }
            #expect(message.contains("No active device"))
        }
    }

    // MARK: Hostile numbers

    /// Queues one 429 for /v1/tracks with a Retry-After of 10^30 seconds (a JSON integer, which
    /// the stand-in takes and JSONSerialization would write as a float).
    static func failWithHugeRetryAfter() async throws {
        let body = #"{"service": "spotify", "status": 429, "count": 1, "path": "/v1/tracks", "retry_after": 1000000000000000000000000000000}"#
        let response = try await CurlHTTPClient().send(HTTPRequest(method: .post, url: "\(try ServiceStubs.controlURL())/_control/fail",
                                                               body: .json(Array(body.utf8))))
        try #require(response.status == 200, "\(response.text)")
    }

    @Test("a Retry-After of 1e30 traps nothing: not slept by default; an unbounded policy sleeps until cancelled")
    func hugeRetryAfter() async throws {
        let configuration = try SpotifyTesting.configuration(.confidential, redirectURI: nil)
        let client = SpotifyClient(configuration: configuration)
        try await client.oauth.authenticateWithClientCredentials()
        try await Self.failWithHugeRetryAfter()
        let error = await SpotifyTesting.error { try await client.track(SpotifyTesting.previewTrack) }
        #expect(error == .rateLimited(retryAfter: 1e30), "\(String(describing: error))")
        #expect(error?.description.hasSuffix("retry after \(Int(ServiceRetryPolicy.longestSleep)) s") == true)

        let patient = SpotifyClient(configuration: configuration, retryPolicy: ServiceRetryPolicy(maximumDelay: .infinity))
        try await patient.oauth.authenticateWithClientCredentials()
        try await Self.failWithHugeRetryAfter()
        let mark = try ServiceStubs.logMark()
        let call = Task { try await patient.track(SpotifyTesting.previewTrack) }
        try await Task.sleep(for: .milliseconds(500))
        call.cancel()
        let outcome = await call.result
        guard case .failure(let failure) = outcome else { Issue.record("the call went on: \(outcome)"); return }
        #expect(failure as? SpotifyError == .cancelled, "\(failure)")
        #expect(try SpotifyTesting.log(after: mark, host: "api").map { $0["status"] as? Int } == [429], "one try, then the (clamped) sleep")
        #expect(ServiceRetryPolicy.sleepDuration(.infinity) == .seconds(ServiceRetryPolicy.longestSleep))
        #expect(ServiceRetryPolicy.sleepDuration(.nan) == .zero && ServiceRetryPolicy.sleepDuration(-5) == .zero)
        #expect(ServiceRetryPolicy.sleepDuration(1.5) == .milliseconds(1500))
    }

    @Test("seek(toOffset:) refuses negative, infinite and NaN positions with a typed error, before any request")
    func invalidSeek() async throws {
        let client = SpotifyClient(configuration: try SpotifyTesting.configuration(.confidential, redirectURI: nil))
        let mark = try ServiceStubs.logMark()
        for seconds in [-1, .infinity, -.infinity, 1e300, SpotifyClient.longestSeek + 1] {
            await #expect(throws: SpotifyError.invalidSeekPosition(seconds: seconds)) { try await client.seek(toOffset: seconds) }
        }
        let nan = await SpotifyTesting.error { try await client.seek(toOffset: .nan) }
        guard case .invalidSeekPosition(let seconds)? = nan, seconds.isNaN else { Issue.record("\(String(describing: nan))"); return }
        #expect(nan?.description.contains("cannot seek") == true)
        #expect(try SpotifyTesting.log(after: mark).isEmpty, "no request for an impossible position")
    }
}
