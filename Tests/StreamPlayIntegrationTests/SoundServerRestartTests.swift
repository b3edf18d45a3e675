import Foundation
import Testing
@testable import StreamPlay

/// A sound server that goes away mid-play: the test PulseAudio daemon, or PipeWire's three
/// programs, killed (as a crash would) and started again with the same socket and sink. Within
/// the reconnect timeout the play goes on where it was heard; past it, it fails with the typed
/// error.
@Suite("Sound server restart", .serialized, .needsTestServers)
struct SoundServerRestartTests {
    /// Runs `scripts/test-servers.sh COMMAND DIR` on the servers of this test run.
    static func servers(_ command: String, _ server: SoundServer) throws {
        try servers("\(command)-\(server.scriptName)")
    }

    static func servers(_ command: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/test-servers.sh").standardized.path
        let arguments = ["bash", script, command, try TestEnvironment.value("STREAMPLAY_TEST_SERVERS_DIR")]
        // posix_spawn and waitpid, not Process: the daemons the script starts keep descriptors
        // they inherit, and Process waits for those to close (PipeWire's never do).
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "bash", nil, nil, argv, environ) == 0 else {
            throw Shell.Failure(description: "cannot run \(arguments.joined(separator: " "))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw Shell.Failure(description: "\(arguments.joined(separator: " ")) failed (wait status \(status))")
        }
    }

    @Test("the server comes back within the timeout: the play goes on where it was heard, to the end",
          arguments: SoundServer.all)
    func serverComesBack(server: SoundServer) async throws {
        try await server.expectPlayed("SoundServerRestartTests") { try await playThroughRestart(on: server) }
    }

    /// Plays a track, kills and restarts the server mid-play, and records what the new server
    /// plays. Returns why that audio is not the rest of the track (`nil` when it is); what
    /// does not depend on the recording is expected here.
    private func playThroughRestart(on server: SoundServer) async throws -> String? {
        let file = "cbr-44k-stereo.mp3"
        let reference = try ReferenceAudio(file)
        let sink = try server.sink()
        var configuration = PlayerConfiguration(output: try server.output())
        configuration.soundServerReconnectTimeout = 10
        let player = Player(configuration: configuration)
        let events = EventLog(player)
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/\(file)")
        try await player.wait(for: "2 s played", within: 10) { ($0.position ?? 0) >= 2 }

        try Self.servers("kill", server)
        let killedAt = try #require(player.position)
        try await Task.sleep(for: .milliseconds(700))
        // While the server is away nothing is heard, and the position does not run on.
        #expect(abs((player.position ?? 0) - killedAt) < 0.1, "the position ran on without a server: \(player.position ?? 0) s")
        try Self.servers("start", server)
        let recorder = MonitorRecorder(sink: sink, server: try server.address())
        try await recorder.start()
        try await player.wait(for: "playing again", within: 10) { ($0.position ?? 0) >= killedAt + 1 }
        let heardFrom = try #require(player.position)
        let recording = try await player.endRecording(recorder, events: events, within: 40)

        // What the new server played is the track, from about where the position said, to its
        // very end with nothing missing. A sound server on a loaded machine may run dry for a
        // moment after the restart, and what it plays then is silence, with nothing lost.
        let rest = try Self.restOfTrack(in: recording, reference: reference)
        #expect(rest.heardFrom <= heardFrom + 0.2, "heard \(rest.heardFrom) s, the position said \(heardFrom) s")
        #expect(rest.heardFrom >= killedAt - 0.3, "heard \(rest.heardFrom) s after the restart, stopped at \(killedAt) s")
        return rest.failure.map { "after the restart, killed at \(killedAt) s: \($0)" }
    }

    /// How closely audio that a sound server altered after its restart must still follow the
    /// track, in dB (``PCM/signalToNoise(_:_:)``): rounding or a gain a hair from 1 scores far
    /// above it, the track a frame off near 0 dB.
    static let alteredTailSignalToNoise = 40.0

    /// A configuration whose sink is named `applicationName` on `server`, and waits 10 s for a
    /// server that went away.
    static func reconnecting(on server: SoundServer, applicationName: String) throws -> PlayerConfiguration {
        var configuration = PlayerConfiguration(
            output: try SharedSoundServerConnectionTests.output(server, applicationName: applicationName, reconnectTimeout: 10))
        configuration.soundServerReconnectTimeout = 10
        return configuration
    }

    @Test("a pause made while the server is away holds once it is back; the resume plays on from there",
          arguments: SoundServer.all)
    func pauseWhileAwayHolds(server: SoundServer) async throws {
        let (player, events, _, pausedAt) = try await Self.pausedAcrossRestart(on: server)
        defer { player.stop() }

        try await Self.expectPlaysOn(player, from: pausedAt, events: events)
    }

    @Test("the server goes away again while the play is paused after the first restart: the resume plays on from there",
          arguments: SoundServer.all)
    func secondOutageWhilePaused(server: SoundServer) async throws {
        let (player, events, name, pausedAt) = try await Self.pausedAcrossRestart(on: server)
        defer { player.stop() }
        // The paused stream holds what the first server had not played, and more if it took
        // it: the second server's loss takes that from it.
        try await Self.restart(server, waitingForStreamOf: name)
        let stillAt = try await Self.expectHeld(player)
        #expect(abs(stillAt - pausedAt) < Self.heldPositionDrift, "from \(pausedAt) s to \(stillAt) s across the second restart")
        try await Self.expectPlaysOn(player, from: stillAt, events: events)
    }

    @Test("a server lost again and again while a play is paused: tolerated PulseAudioSink.lossesTolerated times, then soundServerUnavailable at once",
          arguments: SoundServer.all)
    func serverLostAgainAndAgain(server: SoundServer) async throws {
        // The first loss.
        let (player, _, name, pausedAt) = try await Self.pausedAcrossRestart(on: server)
        defer { player.stop() }
        // Each restart while paused is one more loss with nothing played in between, whether
        // it comes while the sink writes again what the last server had not played (the pause
        // holds that write) or, once a paused stream took all of that, the decoder's next write.
        for restart in 1..<PulseAudioSink.lossesTolerated {
            try await Self.restart(server, waitingForStreamOf: name)
            #expect(player.state == .paused, "after restart \(restart): \(player.state)")
        }
        #expect(abs((player.position ?? 0) - pausedAt) < Self.heldPositionDrift,
                "from \(pausedAt) s to \(player.position ?? 0) s across the restarts")
        try Self.servers("kill", server)
        defer { try? Self.servers("start", server) }
        // Well within the 10 s that a reconnect waits for a server to come back.
        let final = try await player.finish(within: 5)
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final)")
            return
        }
        #expect(error.description.contains("went away \(PulseAudioSink.lossesTolerated + 1) times"), "\(error)")
    }

    /// A play on `server` 2 s in, the server killed, the play paused while it is away, and the
    /// server started again: returns once the sink has its stream back and the pause held for
    /// a second (``expectHeld(_:)``), with the sink's name and where the play is held. The
    /// caller stops the player.
    static func pausedAcrossRestart(on server: SoundServer) async throws
        -> (player: Player, events: EventLog, name: String, pausedAt: Double) {
        let name = SharedSoundServerConnectionTests.uniqueName()
        let player = Player(configuration: try reconnecting(on: server, applicationName: name))
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        do {
            try await player.wait(for: "2 s played", within: 10) { ($0.position ?? 0) >= 2 }
            try await restart(server, waitingForStreamOf: name) { player.pause() }
            return (player, events, name, try await expectHeld(player))
        } catch {
            player.stop()
            throw error
        }
    }

    /// How far the position of a paused play may move while it is held, in seconds. A pause
    /// that does not hold moves it by the whole second that ``expectHeld(_:)`` watches. Once
    /// in a CI run the paused position on PipeWire moved by 57 ms after the restart, within
    /// that second and no further; it was not seen again in tens of runs here, loaded or not.
    static let heldPositionDrift = 0.15

    /// Expects `player` to stay paused, its position still, for a second; returns where it is
    /// held. A failure shows the positions read every 50 ms.
    static func expectHeld(_ player: Player) async throws -> Double {
        let heldAt = try #require(player.position)
        var readings: [Double] = []
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(50))
            readings.append(player.position ?? -1)
        }
        #expect(player.state == .paused, "\(player.state)")
        let farthest = readings.map { abs($0 - heldAt) }.max() ?? 0
        #expect(farthest < heldPositionDrift, "played on while paused, from \(heldAt) s: \(readings)")
        return try #require(player.position)
    }

    /// Kills `server`, runs `whileAway` 300 ms later, starts the server again and waits until
    /// the sink named `name` has its stream there once more.
    static func restart(_ server: SoundServer, waitingForStreamOf name: String,
                        whileAway: () -> Void = {}) async throws {
        try servers("kill", server)
        try await Task.sleep(for: .milliseconds(300))
        whileAway()
        try servers("start", server)
        try await waitForStream(of: name, on: server)
    }

    /// Resumes `player`, held at `position`, and expects it to play a second on from there
    /// without having failed at any point (`events`).
    static func expectPlaysOn(_ player: Player, from position: Double, events: EventLog) async throws {
        player.resume()
        try await player.wait(for: "playing again", within: 10) { ($0.position ?? 0) >= position + 1 }
        #expect(player.state == .playing, "\(player.state)")
        #expect(!events.states.contains { if case .failed = $0 { true } else { false } }, "\(events.states)")
    }

    /// Waits until the sink named `name` has its stream on `server` again: the reconnect made
    /// it.
    static func waitForStream(of name: String, on server: SoundServer) async throws {
        for _ in 0..<100 {
            let clients = (try? SharedSoundServerConnectionTests.clients(named: name, on: server)) ?? []
            if clients.contains(where: { (try? SharedSoundServerConnectionTests.streams(ofClient: $0, on: server)) == 1 }) {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Shell.Failure(description: "the sink made no stream on \(server) within 10 s")
    }

    @Test("a seek made while the server is away is played from its target once the server is back",
          arguments: SoundServer.all)
    func seekWhileAwayPlaysOn(server: SoundServer) async throws {
        let player = Player(configuration: try Self.reconnecting(on: server,
                                                                 applicationName: SharedSoundServerConnectionTests.uniqueName()))
        let events = EventLog(player)
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        try await player.wait(for: "2 s played", within: 10) { ($0.position ?? 0) >= 2 }

        try Self.servers("kill", server)
        try await Task.sleep(for: .milliseconds(300))
        player.seek(to: 20)
        try await Task.sleep(for: .milliseconds(300))
        try Self.servers("start", server)
        try await player.wait(for: "playing on from the seek", within: 10) { ($0.position ?? 0) >= 21 }
        #expect(!events.states.contains { if case .failed = $0 { true } else { false } }, "\(events.states)")
        #expect(try await player.finish(within: 20) == .ended)
    }

    @Test("two players of one connection: both go on after the restart, over one new connection",
          arguments: SoundServer.all)
    func sharedConnectionComesBack(server: SoundServer) async throws {
        let name = SharedSoundServerConnectionTests.uniqueName()
        let configuration = try Self.reconnecting(on: server, applicationName: name)
        let players = [Player(configuration: configuration), Player(configuration: configuration)]
        let logs = players.map { EventLog($0) }
        defer { for player in players { player.stop() } }
        for player in players { player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3") }
        for player in players {
            try await player.wait(for: "1 s played", within: 10) { ($0.position ?? 0) >= 1 }
        }
        #expect(try SharedSoundServerConnectionTests.clients(named: name, on: server).count == 1)

        try Self.servers("kill", server)
        let killedAt = players.map { $0.position ?? 0 }
        try await Task.sleep(for: .milliseconds(500))
        try Self.servers("start", server)
        for (player, position) in zip(players, killedAt) {
            try await player.wait(for: "playing again", within: 10) { ($0.position ?? 0) >= position + 1 }
        }
        for (index, log) in logs.enumerated() {
            #expect(!log.states.contains { if case .failed = $0 { true } else { false } }, "player \(index): \(log.states)")
            #expect(players[index].state == .playing, "player \(index) is \(players[index].state)")
        }
        let clients = try SharedSoundServerConnectionTests.clients(named: name, on: server)
        #expect(clients.count == 1, "\(server): clients after the restart: \(clients)")
        if let client = clients.first {
            #expect(try SharedSoundServerConnectionTests.streams(ofClient: client, on: server) == 2)
        }
    }

    /// When the server goes away in a track's last audio, which is draining (with two seconds
    /// queued in the server, the last 1.8 s are written before they play).
    enum DrainLoss: String, CaseIterable, CustomTestStringConvertible {
        /// While the drain plays: the lost stream cancels it.
        case whilePlaying
        /// While the play is paused in the drain.
        case whilePaused
        /// Just after a two-second pause in the drain: the pause is not played time.
        case afterResuming

        var testDescription: String { rawValue }

        /// The cases that a drain is sure to be under way in: on PipeWire, whose drain lasts
        /// until played. PulseAudio acknowledges a drain once the stream's audio has moved into
        /// the sink's own buffer (most of the latency, with `PA_STREAM_ADJUST_LATENCY`), which
        /// can come before the test's pause: a fresh-clone CI run had the paused PulseAudio
        /// case end before the kill, its drain already acknowledged.
        static let cases: [(SoundServer, DrainLoss)] = allCases.map { (SoundServer.pipeWire, $0) }
    }

    /// A drain cancelled by the lost stream, or begun or resumed on a lost stream, is no end:
    /// the sink reconnects, writes again what the old server had not played, and drains that.
    /// The play is paused while the server is away, so that the recording made once it is back
    /// hears all of that audio from the resume.
    @Test("the server goes away while a track's last audio drains: once back, it plays that audio, then the track ends",
          arguments: DrainLoss.cases)
    func serverLostWhileDraining(server: SoundServer, loss: DrainLoss) async throws {
        let (player, events, name, reference) = try await Self.draining(on: server)
        defer { player.stop() }
        let length = Double(reference.frameCount) / Double(reference.sampleRate)
        let address = try server.address(), sinkName = try server.sink()
        if loss != .whilePlaying { player.pause() }
        if loss == .afterResuming {
            try await Task.sleep(for: .seconds(2))
            player.resume()
            try await Task.sleep(for: .milliseconds(50))
        }
        // The audio stops somewhere within the kill: played from before it to after it.
        let playedBefore = try #require(player.position)
        let killStart = ContinuousClock.now
        try Self.servers("kill", server)
        let killing = (ContinuousClock.now - killStart).inSeconds
        let killedAt = try #require(player.position)
        try await Task.sleep(for: .milliseconds(300))
        #expect(player.state == (loss == .whilePaused ? .paused : .playing),
                "\(player.state) with the last \(length - killedAt) s unplayed")
        player.pause()
        try Self.servers("start", server)
        try await Self.waitForStream(of: name, on: server)
        let recorder = MonitorRecorder(sink: sinkName, server: address)
        try await recorder.start()
        player.resume()
        let recording = try await player.endRecording(recorder, events: events, within: 20)

        // What the new server played is the track from where the kill stopped it, to its very
        // end: nothing lost, nothing played twice.
        let heardFrom = try Self.expectRestOfTrack(in: recording, reference: reference)
        // The position after the kill is the sink's own guess of what was unplayed, so it is
        // held against what played before the kill too.
        #expect(abs(heardFrom - killedAt) < 0.3, "heard from \(heardFrom) s after the restart, stopped at \(killedAt) s")
        #expect(heardFrom >= playedBefore - 0.3 && heardFrom <= playedBefore + killing + 0.3,
                "heard from \(heardFrom) s after the restart; \(playedBefore) s had played when the kill began, which took \(killing) s")
    }

    /// Finds where the first sound of `recording` (44.1 kHz stereo) is in `reference`, and
    /// expects the recording to hold everything from there to the track's very end (see
    /// ``restOfTrack(in:reference:)``).
    /// - Returns: where the recording begins in the track, in seconds.
    static func expectRestOfTrack(in recording: [Int16], reference: ReferenceAudio,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Double {
        let rest = try restOfTrack(in: recording, reference: reference)
        #expect(rest.failure == nil, "\(rest.failure ?? "")", sourceLocation: sourceLocation)
        return rest.heardFrom
    }

    /// Finds where the first sound of `recording` (44.1 kHz stereo) is in `reference`, and
    /// whether the recording holds everything from there to the track's very end: nothing
    /// lost, nothing played twice (silent runs, which a wait or a sound server that ran dry
    /// leaves, set aside on both sides; a last stretch altered by the sound server passes above
    /// ``alteredTailSignalToNoise``).
    /// - Returns: where the recording begins in the track, in seconds, and why what follows is
    ///   not the rest of the track (`nil` when it is).
    /// - Throws: when nothing was heard, or what was heard is not the track.
    static func restOfTrack(in recording: [Int16], reference: ReferenceAudio) throws
        -> (heardFrom: Double, failure: String?) {
        let first = try #require(recording.firstIndex { $0 != 0 }.map { $0 / 2 }, "nothing was heard")
        let located = PCM.locate(recordingFrame: first + 4410, recording: recording, in: reference.samples, channels: 2)
        let landed = try #require(located, "the audio heard is not the track (\(recording.count / 2) frames)") - 4410
        let heardFrom = Double(landed) / 44100
        let heard = PCM.withoutSilentRuns(recording[(first * 2)...], channels: 2, atLeast: PCM.shortestWait)
        let expected = PCM.withoutSilentRuns(reference.samples[(landed * 2)...], channels: 2, atLeast: PCM.shortestWait)
        let exact = PCM.commonPrefixFrames(heard, expected, channels: 2)
        // Bit for bit as far as the server keeps it so. PipeWire, in rare runs, stops doing so
        // partway through the play and for the rest of it, with no silence and no shift; what it
        // then plays is still held against the track at the same place: audio lost or repeated
        // would misalign the two and score near 0 dB.
        let tail = PCM.signalToNoise(heard.dropFirst(exact * 2), expected.dropFirst(exact * 2))
        if heard.count >= expected.count && (exact == expected.count / 2 || tail >= alteredTailSignalToNoise) {
            return (heardFrom, nil)
        }
        // Where the heard audio goes on after the first difference: behind it is audio played
        // twice, ahead of it audio lost. The difference is placed in the track (silences cut
        // out of the track before it are few and short) and in the recording, by its stretches.
        let goesOn = PCM.locate(recordingFrame: exact + 4410, recording: heard, in: expected, channels: 2)
            .map { "\($0 - exact - 4410)" } ?? "nowhere"
        let silences = (recording.count - first * 2 - heard.count) / 2
        let stretches = SeekTests.segments(of: recording, in: reference).map { "\($0.output)→\($0.track)" }
        return (heardFrom, "heard \(heard.count / 2) of \(expected.count / 2) frames from \(heardFrom) s, \(exact) exact "
            + "(to about \(Double(landed + exact) / 44100) s of the track), then \(tail) dB "
            + "(gain \(PCM.gain(heard.dropFirst(exact * 2), expected.dropFirst(exact * 2)))); after that, the heard "
            + "audio is \(goesOn) frames off; \(silences) frames of silence cut out; stretches (recording frame, "
            + "track frame): \(stretches), first sound at \(first)")
    }

    /// libpulse answers a drain with failure once its reply has waited 30 s, and a drain of a
    /// corked stream waits until the resume: a pause in a track's last audio outlasts that.
    /// The drain is sent again on the same stream, and the play neither ends nor gets a new
    /// stream while paused. On PipeWire, whose drain lasts until the audio is played: on
    /// PulseAudio the drain may already be acknowledged when the pause comes (see
    /// ``DrainLoss/cases``), as it once was in a loaded run.
    @Test("a pause of more than 30 s in a track's draining last audio holds; the resume plays the rest on the same stream")
    func longPauseWhileDraining() async throws {
        let server = SoundServer.pipeWire
        let (player, events, name, _) = try await Self.draining(on: server)
        defer { player.stop() }
        player.pause()
        let pausedAt = try #require(player.position)
        let streams = try Self.sinkInputs(named: name, on: server)
        #expect(streams.count == 1, "\(streams)")
        try await Task.sleep(for: .seconds(33))
        #expect(player.state == .paused, "\(player.state) after 33 s paused")
        #expect(abs((player.position ?? 0) - pausedAt) < Self.heldPositionDrift, "moved from \(pausedAt) s while paused")
        #expect(try Self.sinkInputs(named: name, on: server) == streams, "the stream was made again while paused")
        player.resume()
        #expect(try await player.finish(within: 10) == .ended)
        #expect(!events.states.contains { if case .failed = $0 { true } else { false } }, "states: \(events.states)")
    }

    /// A play of a 6 s track on `server` with two seconds queued, which waits 10 s for a lost
    /// server, returned once under 1.8 s are queued: the decoder wrote the rest when the queue
    /// had room for it, and the track is draining. The caller stops the player.
    static func draining(on server: SoundServer) async throws
        -> (player: Player, events: EventLog, name: String, reference: ReferenceAudio) {
        let file = "cbr-44k-stereo-short.mp3"
        let reference = try ReferenceAudio(file)
        let length = Double(reference.frameCount) / Double(reference.sampleRate)
        let address = try server.address(), sinkName = try server.sink()
        let name = SharedSoundServerConnectionTests.uniqueName()
        var configuration = PlayerConfiguration(output: .custom {
            PulseAudioSink(server: address, sinkName: sinkName, applicationName: name, targetLatency: 2,
                           reconnectTimeout: 10)
        })
        configuration.soundServerReconnectTimeout = 10
        let player = Player(configuration: configuration)
        let events = EventLog(player)
        do {
            player.play("\(try TestEnvironment.http())/\(file)")
            try await player.wait(for: "the last 1.8 s", within: 15) { ($0.position ?? 0) >= length - 1.8 }
            return (player, events, name, reference)
        } catch {
            player.stop()
            throw error
        }
    }

    /// The server's indices of the streams of the clients named `name`.
    static func sinkInputs(named name: String, on server: SoundServer) throws -> [String] {
        let clients = Set(try SharedSoundServerConnectionTests.clients(named: name, on: server))
        return try Shell.run("pactl", ["-s", try server.address(), "list", "sink-inputs", "short"])
            .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            .filter { $0.count > 2 && clients.contains($0[2]) }.map { $0[0] }
    }

    @Test("the server does not come back within the timeout: soundServerUnavailable, promptly",
          arguments: SoundServer.all)
    func serverStaysAway(server: SoundServer) async throws {
        var configuration = PlayerConfiguration(output: try server.output())
        configuration.soundServerReconnectTimeout = 1
        let player = Player(configuration: configuration)
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        try await player.wait(for: "1 s played", within: 10) { ($0.position ?? 0) >= 1 }
        try Self.servers("kill", server)
        defer { try? Self.servers("start", server) }
        let killed = ContinuousClock.now
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final)")
            return
        }
        #expect(ContinuousClock.now - killed < .seconds(4), "failed after \(ContinuousClock.now - killed)")
        #expect(error.description.contains("was not back within"), "\(error)")
    }
}
