import Foundation
import StreamPlay
import StreamPlayTesting
import Testing

/// An HLS input's waits on a `ManualClock`, against the fault server: the backoff before a
/// dropped segment is resumed is the clock's, whatever the real time.
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
        #expect(samples == reference.samples, "\(samples.count) of \(reference.samples.count) samples")
        let second = try Self.entries(token: playlist.token, segment: "seg001.mp3")
        #expect(second.count == 2, "\(second)")
        #expect(second.last?["range"] as? String == "bytes=20000-", "the resume asks for the rest: \(second)")
    }
}
