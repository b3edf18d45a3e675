import Foundation
import Synchronization
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

    /// Waits up to 5 s until the server lists a sink called `sink`.
    static func waitUntilListed(sink: String, on server: SoundServer) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let sinks = try Shell.run("pactl", ["-s", try server.address(), "list", "short", "sinks"])
            if sinks.split(separator: "\n").contains(where: { $0.split(separator: "\t").dropFirst().first.map(String.init) == sink }) {
                return
            }
            if ContinuousClock.now > deadline { throw TimedOut(what: "\(server) to list the sink \(sink)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Plays a tenth of a second to each of `sinks`, from a client of its own, until a drain of
    /// one such play returns (three streams at most a sink, each given 6 s in all). A drain also
    /// returns for a stream the server dropped: this settles the sink as well as it can, and
    /// the test proper checks every player's play.
    ///
    /// A likely cause of this test's failures on PipeWire, not confirmed: its session manager
    /// (WirePlumber 0.4) sets up a new sink's ports as the first stream links to it, and a link
    /// made meanwhile can fail ("wrong ports"), its stream then never played. That would be the
    /// server's doing, not the engine's, and this test is about the connection; once a play
    /// went through, the sink is set up. A stream left unlinked all the same (`pactl` shows it
    /// corked; one CI run had one, its player silent at 0.12 s) is made again by its sink after
    /// the stall timeout (5 s), well within the players' deadline (see `StalledStreamTests`).
    static func settle(_ sinks: [ExtraNullSink], on server: SoundServer) throws {
        let address = try server.address()
        let format = AudioFormat(sampleRate: 44100, channels: 2)
        let tenth = [Int16](repeating: 0, count: 4410 * 2)
        for sink in sinks {
            var failures: [String] = []
            for _ in 0..<3 {
                let output = PulseAudioSink(server: address, sinkName: sink.name, applicationName: "StreamPlaySettle",
                                            connectTimeout: 5)
                // The bound on every wait below (opening, writing, draining): an interrupt from
                // a timer that needs no thread of the test's.
                let watchdog = DispatchWorkItem { output.interrupt() }
                DispatchQueue.global().asyncAfter(deadline: .now() + 6, execute: watchdog)
                defer {
                    watchdog.cancel()
                    output.close()
                }
                do {
                    try output.open(format: format)
                    _ = try tenth.withUnsafeBytes { try output.write($0) }
                    output.start()
                    if try output.drain() { break }
                    failures.append("not drained within 6 s")
                } catch {
                    failures.append("\(error)")
                }
            }
            if failures.count == 3 {
                throw TimedOut(what: "\(server) to play on the new sink \(sink.name): \(failures.joined(separator: "; "))")
            }
        }
    }

    /// Waits until every player has played 0.2 s. Past `seconds`, fails naming the players
    /// that have not, with what the server says of the client's streams (their sinks, and
    /// whether corked), so that a stream the server holds still can be told from one
    /// the engine never started.
    static func waitUntilAllPlay(_ players: [Player], within seconds: Double, name: String,
                                 server: SoundServer, sinks: MadeSinks? = nil) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var waiting = Array(players.indices)
        while true {
            for index in waiting {
                if case .failed(let error) = players[index].state { throw error }
            }
            waiting.removeAll { (players[$0].position ?? 0) >= 0.2 }
            if waiting.isEmpty { return }
            if ContinuousClock.now > deadline { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let behind = waiting.prefix(5).map { index -> String in
            let position = players[index].position ?? 0
            var line = "player \(index) (\(players[index].state), position \(position) s"
            if let sink = sinks?.sink(of: index) { line += "; its sink: \(sink.stateDescription)" }
            return line + ")"
        }
        let streams = (try? streamSummary(ofClientsNamed: name, on: server)) ?? "not listed"
        let list = behind.joined(separator: ", ")
        throw TimedOut(what: "\(waiting.count) of \(players.count) players to play on \(server): \(list); "
            + "the server's streams of the client: \(streams)")
    }

    /// The client's playback streams counted by sink and by whether the server has them
    /// corked, as `pactl list sink-inputs` tells them ("sink 3: 23 (0 corked), ...").
    static func streamSummary(ofClientsNamed applicationName: String, on server: SoundServer) throws -> String {
        let clients = Set(try clients(named: applicationName, on: server))
        let listing = try Shell.run("pactl", ["-s", try server.address(), "list", "sink-inputs"])
        var bySink: [String: (streams: Int, corked: Int)] = [:]
        for block in listing.components(separatedBy: "Sink Input #").dropFirst() {
            let fields = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            func value(_ key: String) -> String? {
                fields.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
            }
            guard let client = value("Client"), clients.contains(client) else { continue }
            let sink = value("Sink") ?? "none"
            bySink[sink, default: (0, 0)].streams += 1
            if value("Corked") == "yes" { bySink[sink, default: (0, 0)].corked += 1 }
        }
        if bySink.isEmpty { return "none" }
        return bySink.sorted { $0.key < $1.key }
            .map { "sink \($0.key): \($0.value.streams) (\($0.value.corked) corked)" }
            .joined(separator: ", ")
    }

    /// The sinks that players' outputs made, by player: a failure names the state of a
    /// player's own sink.
    final class MadeSinks: Sendable {
        private let sinks = Mutex<[Int: PulseAudioSink]>([:])

        func made(_ sink: PulseAudioSink, by player: Int) -> PulseAudioSink {
            sinks.withLock { $0[player] = sink }
            return sink
        }

        func sink(of player: Int) -> PulseAudioSink? {
            sinks.withLock { $0[player] }
        }
    }

    static func uniqueName() -> String {
        "StreamPlaySharedTest-\(UUID().uuidString.prefix(8))"
    }

    @Test("70 players, more than the daemon's 64 clients, play at once over one connection",
          arguments: SoundServer.all)
    func manyPlayersOneClient(server: SoundServer) async throws {
        try await server.expectPlayed("SharedSoundServerConnectionTests") { try await playMany(on: server) }
    }

    /// Plays 70 players at once on three new sinks of `server`, and checks that the server
    /// sees one client with a stream for each. Returns the players that did not play within
    /// the deadline, when some did not (on PipeWire that is played again once: a fresh-clone
    /// run of 2026-11-30 had 27 streams listed on their sinks whose creation the server had
    /// not answered after 25 s, where the whole test takes 5 s here); what does not depend on
    /// the server's pace is expected here.
    private func playMany(on server: SoundServer) async throws -> String? {
        let count = 70
        let name = Self.uniqueName()
        // Three sinks: the PulseAudio daemon mixes at most 32 streams into one sink, and the
        // streams past that wait (it is a limit of a sink, not of a client).
        let sinks = try (0..<3).map { _ in try ExtraNullSink(sampleRate: 44100, channels: 2, server: try server.address()) }
        // Each sink known to the server, and settled, before the players' streams ask for it.
        for sink in sinks { try await Self.waitUntilListed(sink: sink.name, on: server) }
        try Self.settle(sinks, on: server)
        // The track lasts 30 s: with the 25 s deadline below, the first to start still play
        // when the server's lists are read.
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo.mp3"
        let address = try server.address()
        let made = MadeSinks()
        let players = (0..<count).map { index in
            let sinkName = sinks[index % sinks.count].name
            return Player(configuration: PlayerConfiguration(output: .custom {
                made.made(PulseAudioSink(server: address, sinkName: sinkName, applicationName: name), by: index)
            }))
        }
        defer { for player in players { player.stop() } }
        for player in players { player.play(url) }
        // Every one plays (a player that failed, as a client the server refused, fails here).
        // One deadline for all: the server links 70 new streams at its own pace.
        do {
            try await Self.waitUntilAllPlay(players, within: 25, name: name, server: server, sinks: made)
        } catch let timedOut as TimedOut {
            return timedOut.description
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
        return nil
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
