import Testing
@testable import StreamPlay

/// A pause that comes just after playback starts: libpulse's timing interpolation can run on
/// after such a cork (a timing reply from before it says the stream plays), which read as a
/// position moving through the pause, by up to what the server held. Nothing plays while
/// corked, so the sink holds its latency at what is queued.
@Suite("A pause as playback starts", .serialized, .needsTestServers)
struct PauseAtStartTests {
    @Test("paused the moment it plays, with a 1 s buffer: the position holds, play after play")
    func positionHolds() async throws {
        let address = try SoundServer.pulseAudio.address()
        let nullSink = try ExtraNullSink(sampleRate: 44100, channels: 2, server: address)
        var configuration = PlayerConfiguration(output: .pulseAudio(server: address, sink: nullSink.name))
        configuration.targetLatency = 1
        let base = try TestEnvironment.http()
        // The race is the server's: about one play in three showed it before the fix.
        for round in 1...5 {
            let player = Player(configuration: configuration)
            defer { player.stop() }
            player.play(try MediaLocation(parsing: "\(base)/tagged/song-a.mp3"))
            let deadline = ContinuousClock.now + .seconds(10)
            while player.state != .playing, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            try #require(player.state == .playing, "round \(round): never played")
            player.pause()
            let pausedAt = try #require(player.position)
            try await Task.sleep(for: .milliseconds(600))
            let later = try #require(player.position)
            #expect(abs(later - pausedAt) < 0.02, "round \(round): paused at \(pausedAt) s, then \(later) s")
            #expect(player.state == .paused)
        }
    }
}
