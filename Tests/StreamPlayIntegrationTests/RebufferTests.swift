import Foundation
import Testing
@testable import StreamPlay

/// Links slower than the stream, and a sound server that goes away.
@Suite("Rebuffering and the sound server", .serialized, .needsTestServers)
struct RebufferTests {
    static func throttled(_ bytesPerSecond: Int) throws -> String {
        "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))/throttle/\(bytesPerSecond)/cbr-44k-stereo.mp3?\(UUID().uuidString.prefix(8))"
    }

    @Test("at 0.9× the bitrate: buffering, then playing again after a refill, without flapping")
    func slowLink() async throws {
        var configuration = PlayerConfiguration(output: .pulseAudio(sink: try TestEnvironment.pulseSink()))
        configuration.rebufferRefill = 1
        let player = Player(configuration: configuration)
        let events = EventLog(player)
        // 128 kbit/s is 16000 bytes/s.
        player.play(try Self.throttled(14_400))
        // The refill is sized by RefillPolicy: with the length known and the link measured, the
        // rest's shortfall and a margin, several seconds at 0.9x, longer under a sanitizer. A
        // stall before the link is measured (the first chunks' gap after a 0.1 s prebuffer)
        // refills only 0.2 s first. A rebuffer is counted when it ends, so the waits are for a
        // start and for the end of a refill over half a second long.
        try await player.wait(for: "a rebuffer to begin", within: 30) { _ in
            let states = events.states
            return zip(states, states.dropFirst()).contains { $0 == .playing && $1 == .buffering }
        }
        try await player.wait(for: "playing again after the refill", within: 30) {
            $0.statistics.rebufferSeconds > 0.5 && $0.state == .playing
        }
        let resumedAt = player.position ?? 0
        try await Task.sleep(for: .seconds(3))
        let statistics = player.statistics
        let position = player.position ?? 0
        player.stop()
        let states = events.states
        let playingToBuffering = zip(states, states.dropFirst()).filter { $0 == .playing && $1 == .buffering }.count
        #expect(playingToBuffering >= 1, "states: \(states)")
        // The refill covers the rest of the track's shortfall: it does not stall again soon.
        // A short first stall, then the long refill; one more is a loaded machine's margin.
        #expect(statistics.rebufferCount <= 3, "flapping: \(statistics.rebufferCount) rebuffers")
        #expect(events.all.contains { if case .rebuffered = $0 { true } else { false } })
        #expect(position > resumedAt + 2, "playback goes on after the refill: \(resumedAt) s, then \(position) s")
    }

    @Test("at 1.5× the bitrate: no rebuffer")
    func fastEnoughLink() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: try TestEnvironment.pulseSink())))
        player.play(try Self.throttled(24_000))
        try await player.wait(for: "6 s played", within: 15) { ($0.position ?? 0) >= 6 }
        #expect(player.statistics.rebufferCount == 0)
        #expect(player.statistics.underflowCount == 0)
        player.stop()
    }

    @Test("the sound server killed mid-play and not back within the reconnect timeout: a clear error, quickly, no hang")
    func soundServerGoesAway() async throws {
        let directory = TestEnvironment.temporaryPath("pulse")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        daemon.arguments = [
            "-u", "PULSE_SERVER", "DBUS_SESSION_BUS_ADDRESS=unix:path=\(directory)/no-dbus",
            "PULSE_RUNTIME_PATH=\(directory)", "PULSE_STATE_PATH=\(directory)/state", "PULSE_COOKIE=\(directory)/cookie",
            "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--realtime=no",
            "--high-priority=no", "--log-target=stderr",
            "-L", "module-null-sink sink_name=doomed rate=44100 channels=2",
            "-L", "module-native-protocol-unix socket=\(directory)/native auth-anonymous=1 auth-cookie-enabled=0",
        ]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(directory)/native") {
            guard Date() < deadline else { throw TimedOut(what: "a private PulseAudio daemon") }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))

        var configuration = PlayerConfiguration(output: .pulseAudio(server: "unix:\(directory)/native"))
        // The daemon never comes back: the error comes once the reconnect timeout has passed.
        configuration.soundServerReconnectTimeout = 1
        let player = Player(configuration: configuration)
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        try await player.wait(for: "playing", within: 10) { $0.state == .playing }
        kill(daemon.processIdentifier, SIGKILL)
        let killed = ContinuousClock.now
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final)")
            return
        }
        #expect(ContinuousClock.now - killed < .seconds(3))
        let stopped = ContinuousClock.now
        player.stop()
        #expect(ContinuousClock.now - stopped < .seconds(1))
        #expect(engineThreadNames().isEmpty)
    }
}
