import Foundation
import StreamPlay
import StreamPlayTesting
import Testing

/// An HLS input's waits on a `ManualClock`, against the fault server: the backoff before a
/// dropped segment is resumed, and a live playlist's reloads, are the clock's, whatever the
/// real time.
@Suite("HLS waits on a manual clock", .serialized, .needsTestServers)
struct HLSManualClockTests {
    /// The fault server's log entries for segment `name` of the playlist with `token`.
    static func entries(token: String, segment name: String) throws -> [[String: Any]] {
        try HLSTests.faultEntries(token: token).filter { ($0["path"] as? String)?.hasSuffix(name) == true }
    }

    @Test("a dropped segment is resumed only once the clock has moved the backoff's delay")
    func segmentBackoffFollowsTheClock() async throws {
        let reference = try ReferenceAudio("hls/source.mp3")
        let playlist = try HLSTests.faultPlaylist { $0 == 1 ? "drop-after/20000" : "plain" }
        defer { playlist.remove() }
        let clock = ManualClock()
        var (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        configuration.clock = clock
        configuration.reconnect.initialDelay = 5
        configuration.reconnect.maximumDelay = 5
        let player = Player(configuration: configuration)
        defer { player.stop() }
        player.play(playlist.url)
        // The resume is planned for 5 s on the clock, which has not moved.
        #expect(await clock.waitForSleeper(timeout: .seconds(30)) { $0 == .seconds(5) }, "\(clock.sleepingDeadlines)")
        clock.advance(by: .milliseconds(4_900))
        try await Task.sleep(for: .milliseconds(100))
        let early = try Self.entries(token: playlist.token, segment: "seg001.mp3")
        #expect(early.count == 1, "resumed before the backoff was over: \(early)")
        #expect(clock.sleepingDeadlines.contains(.seconds(5)))
        clock.advance(by: .milliseconds(100))
        #expect(try await player.finish(within: 60) == .ended)
        let samples = try PCM.wavSamples(path: path).samples
        #expect(SampleDifference.between(samples, reference.samples) == nil, "\(samples.count) of \(reference.samples.count) samples")
        let second = try Self.entries(token: playlist.token, segment: "seg001.mp3")
        #expect(second.count == 2, "\(second)")
        #expect(second.last?["range"] as? String == "bytes=20000-", "the resume asks for the rest: \(second)")
    }

    /// The target duration the fault server gives its live playlists: the ceiling of the
    /// longest EXTINF of the live list.
    static func liveTargetDuration() throws -> Double {
        let text = try String(contentsOfFile: "\(try TestEnvironment.media())/hls/live/index.m3u8", encoding: .utf8)
        let durations = text.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("#EXTINF:") else { return nil }
            return Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
        }
        return try #require(durations.max()).rounded(.up)
    }

    @Test("a live playlist is reloaded only once the clock has moved its target duration")
    func liveReloadFollowsTheClock() async throws {
        let target = try Self.liveTargetDuration()
        let id = UUID().uuidString.prefix(8)
        let playlistPath = "/hls-live/\(id)/index.m3u8"
        let url = "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))\(playlistPath)"
        let reloads = { try HLSTests.faultPaths().filter { $0 == playlistPath }.count - 1 }
        let clock = ManualClock()
        var (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        configuration.clock = clock
        let player = Player(configuration: configuration)
        defer { player.stop() }
        player.play(url)
        // At the live edge, the input waits on the clock (half a second at a time) for the
        // reload it plans at the target duration.
        #expect(await clock.waitForSleeper(timeout: .seconds(30)) { $0 == .milliseconds(500) },
                "\(clock.sleepingDeadlines)")
        // More real time than the target duration: no reload while the clock stands still.
        try await Task.sleep(for: .seconds(target + 0.5))
        #expect(try reloads() == 0, "reloaded with the clock at \(clock.now)")
        // Half a second of the clock at a time: nothing until the target duration.
        while clock.now < .seconds(target) - .milliseconds(500) {
            clock.advance(by: .milliseconds(500))
            try #require(await clock.waitForSleeper(), "\(clock.sleepingDeadlines), now \(clock.now)")
            #expect(try reloads() == 0, "reloaded early, with the clock at \(clock.now)")
        }
        clock.advance(by: .milliseconds(500))
        #expect(clock.now == .seconds(target))
        let start = ContinuousClock.now
        while try reloads() == 0, ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try reloads() == 1, "with the clock at \(clock.now)")
    }
}
