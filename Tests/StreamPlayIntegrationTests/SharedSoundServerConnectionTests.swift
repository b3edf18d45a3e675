import Foundation
import Testing
@testable import StreamPlay

/// The players of a process share one connection to a sound server: more players than the
/// PulseAudio daemon takes clients (64) play at once, and the server sees one client, with a
/// stream per player. The server sees the client leave with the last player, and come back
/// with the next.
@Suite("Shared sound server connection", .serialized, .needsTestServers, .timeLimit(.minutes(2)))
struct SharedSoundServerConnectionTests {
    /// An output to `sink` on `server` whose client is named `applicationName`, so that the
    /// server's client list tells this test's connection from any other.
    static func output(_ server: SoundServer, sink: String? = nil, applicationName: String,
                       reconnectTimeout: Double = 5) throws -> AudioOutput {
        let address = try server.address()
        let sinkName = try sink ?? server.sink()
        return .custom {
            PulseAudioSink(server: address, sinkName: sinkName, applicationName: applicationName,
                           reconnectTimeout: reconnectTimeout)
        }
    }

    /// The indices of the server's clients named `applicationName`.
    static func clients(named applicationName: String, on server: SoundServer) throws -> [String] {
        let listing = try Shell.run("pactl", ["-s", try server.address(), "list", "clients"])
        var result: [String] = []
        var current: String?
        for line in listing.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Client #") {
                current = String(trimmed.dropFirst("Client #".count))
            } else if trimmed == "application.name = \"\(applicationName)\"", let current {
                result.append(current)
            }
        }
        return result
    }

    /// The server's playback streams of the client `index`.
    static func streams(ofClient index: String, on server: SoundServer) throws -> Int {
        try Shell.run("pactl", ["-s", try server.address(), "list", "sink-inputs", "short"])
            .split(separator: "\n")
            .filter { $0.split(separator: "\t").dropFirst(2).first.map(String.init) == index }
            .count
    }

    static func uniqueName() -> String {
        "StreamPlaySharedTest-\(UUID().uuidString.prefix(8))"
    }

    @Test("70 players, more than the daemon's 64 clients, play at once over one connection",
          arguments: SoundServer.all)
    func manyPlayersOneClient(server: SoundServer) async throws {
        let count = 70
        let name = Self.uniqueName()
        // Three sinks: the PulseAudio daemon mixes at most 32 streams into one sink, and the
        // streams past that wait (it is a limit of a sink, not of a client).
        let sinks = try (0..<3).map { _ in try ExtraNullSink(sampleRate: 44100, channels: 2, server: try server.address()) }
        // 30 s: all still play when the server's lists are read, however slowly 70 start here.
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo.mp3"
        let players = try (0..<count).map { index in
            Player(configuration: PlayerConfiguration(
                output: try Self.output(server, sink: sinks[index % sinks.count].name, applicationName: name)))
        }
        defer { for player in players { player.stop() } }
        for player in players { player.play(url) }
        // Every one plays (a player that failed, as a client the server refused, throws here).
        for (index, player) in players.enumerated() {
            try await player.wait(for: "player \(index) playing", within: 20) { ($0.position ?? 0) >= 0.2 }
        }
        let clients = try Self.clients(named: name, on: server)
        #expect(clients.count == 1, "\(server): clients named \(name): \(clients)")
        if let client = clients.first {
            #expect(try Self.streams(ofClient: client, on: server) == count, "\(server): the client's streams")
        }
        for (index, player) in players.enumerated() {
            #expect(player.state == .playing, "\(server): player \(index) is \(player.state)")
        }

        // The connection ends with the last player that uses it.
        for player in players { player.stop() }
        let deadline = ContinuousClock.now + .seconds(5)
        while try !Self.clients(named: name, on: server).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try Self.clients(named: name, on: server).isEmpty, "\(server): the connection outlived its players")
    }

    @Test("a sink opened after the last one closed, and a sink closed and opened again, play on the connection",
          arguments: SoundServer.all)
    func openAfterTheLastClosed(server: SoundServer) async throws {
        let name = Self.uniqueName()
        let address = try server.address(), sinkName = try server.sink()
        let first = PulseAudioSink(server: address, sinkName: sinkName, applicationName: name)
        let second = PulseAudioSink(server: address, sinkName: sinkName, applicationName: name)
        let format = AudioFormat(sampleRate: 44100, channels: 2)
        let tenth = [Int16](repeating: 0, count: 4410 * 2)
        // Each round plays a tenth of a second of silence to the end, then closes: the
        // connection has no user between rounds, and the next open must bring it back.
        for (round, sink) in [first, second, first].enumerated() {
            try sink.open(format: format)
            let written = try tenth.withUnsafeBytes { try sink.write($0) }
            #expect(written == tenth.count * 2, "\(server): round \(round) wrote \(written) bytes")
            sink.start()
            #expect(try sink.drain(), "\(server): round \(round) did not drain")
            #expect(try Self.clients(named: name, on: server).count == 1, "\(server): round \(round)'s client")
            sink.close()
            let deadline = ContinuousClock.now + .seconds(5)
            while try !Self.clients(named: name, on: server).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try Self.clients(named: name, on: server).isEmpty, "\(server): round \(round) left its client")
        }
    }
}
