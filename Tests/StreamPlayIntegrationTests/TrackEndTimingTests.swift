import Testing
@testable import StreamPlay

/// A track's end on a sound server, with a 1 s buffer: the position runs on to the last sample
/// by the server's clock, and `ended` comes once it has been played, not before.
///
/// The clock is read through ``Player/position`` (the written audio less the server's latency)
/// once the track is well under way: the rest of the track is due that much later.
@Suite("The end of a track on a sound server", .serialized, .needsTestServers)
struct TrackEndTimingTests {
    /// What one play showed.
    struct Ending {
        var state: PlayerState
        var finalPosition: Double?
        /// The longest time the position stood still in the last second short of the end.
        var longestStill = 0.0
        /// Seconds from when the server's clock reached the last sample to `ended` (negative:
        /// before); `nil` if the position never passed 0.5 s.
        var late: Double?

        var asExpected: Bool { longestStill < 0.1 && late.map { $0 > -0.05 && $0 < 0.5 } == true }
    }

    static func play(_ file: String, seconds: Double, on server: SoundServer, sink: String) async throws -> Ending {
        let address = try server.address()
        var configuration = PlayerConfiguration(output: .pulseAudio(server: address, sink: sink))
        // Large enough that the server's latency stops shrinking well before the end.
        configuration.targetLatency = 1
        let player = Player(configuration: configuration)
        defer { player.stop() }
        player.play(.file("\(try TestEnvironment.media())/\(file)"))
        var due: ContinuousClock.Instant?
        var longestStill = 0.0
        var still: (position: Double, since: ContinuousClock.Instant)?
        let deadline = ContinuousClock.now + .seconds(30)
        while !player.state.isFinal, ContinuousClock.now < deadline {
            let now = ContinuousClock.now
            if let position = player.position, position > 0.5, position < seconds - 0.005 {
                if due == nil { due = now + .seconds(seconds - position) }
                if position > seconds - 1, let still, still.position == position {
                    longestStill = max(longestStill, (now - still.since).inSeconds)
                } else {
                    still = (position, now)
                }
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        let ended = ContinuousClock.now
        return Ending(state: player.state, finalPosition: player.position, longestStill: longestStill,
                      late: due.map { (ended - $0).inSeconds })
    }

    @Test("with a 1 s buffer, the position runs to the end without standing still, and ended comes after the last sample is played",
          arguments: SoundServer.all)
    func endedWhenHeard(server: SoundServer) async throws {
        let file = "cbr-44k-stereo-short.mp3"
        let reference = try ReferenceAudio(file)
        let seconds = Double(reference.frameCount) / Double(reference.sampleRate)
        let nullSink = try ExtraNullSink(sampleRate: reference.sampleRate, channels: reference.channels, server: try server.address())
        var ending = try await Self.play(file, seconds: seconds, on: server, sink: nullSink.name)
        if !ending.asExpected {
            // A server held up by the machine stops its clock too; reported, and played again once.
            print("TrackEndTimingTests: \(server): \(ending), played again")
            ending = try await Self.play(file, seconds: seconds, on: server, sink: nullSink.name)
        }
        #expect(ending.state == .ended)
        #expect(ending.finalPosition.map { abs($0 - seconds) < 0.001 } == true, "\(server): \(ending)")
        #expect(ending.longestStill < 0.1, "\(server): the position stood still for \(ending.longestStill) s before the end")
        let late = try #require(ending.late, "\(server): the position never passed 0.5 s")
        #expect(late > -0.05, "\(server): ended \(-late) s before the server's clock reached the last sample")
        #expect(late < 0.5, "\(server): ended \(late) s after the server's clock reached the last sample")
    }
}
