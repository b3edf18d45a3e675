import Foundation
import Testing
@testable import StreamPlay

/// A stream the server stops playing mid-play. On PulseAudio, `pactl suspend-sink` holds every
/// stream of a sink still, as a device that stops does; on PipeWire, the links from the stream
/// to its sink are taken away, as when the session manager never links a stream (which
/// `pactl` then shows as corked: seen once in a CI run of the 70-player test, the play silent
/// at 0.12 s). Past the stall timeout the sink makes its stream again, with what the old one
/// had not played; a sink that never plays again fails the play with the typed error rather
/// than hold it silent for ever.
@Suite("Stalled sound server stream", .serialized, .needsTestServers, .timeLimit(.minutes(2)))
struct StalledStreamTests {
    /// A player on `sink` of `server`, whose streams are made again after 1 s without
    /// progress, and are named `name`.
    static func player(on sink: String, server: SoundServer, name: String) throws -> Player {
        let address = try server.address()
        var configuration = PlayerConfiguration(output: .custom {
            PulseAudioSink(server: address, sinkName: sink, applicationName: name, reconnectTimeout: 10, stallTimeout: 1)
        })
        configuration.soundServerReconnectTimeout = 10
        return Player(configuration: configuration)
    }

    /// The streams of the client named `name`, once they are other than `streams` (a stream
    /// made again) and one, or after 5 s.
    static func streamMadeAgain(named name: String, replacing streams: [String],
                                on server: SoundServer) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let now = try SoundServerRestartTests.sinkInputs(named: name, on: server)
            if (now.count == 1 && now != streams) || ContinuousClock.now > deadline { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func suspend(_ sink: ExtraNullSink, _ suspended: Bool, on server: SoundServer) throws {
        try Shell.run("pactl", ["-s", try server.address(), "suspend-sink", sink.name, suspended ? "1" : "0"])
    }

    @Test("a stream the server stops playing (its sink suspended) is made again; once the sink plays again, the play goes on where it stopped, to the end")
    func suspendedSinkStream() async throws {
        let server = SoundServer.pulseAudio
        let file = "cbr-44k-stereo-short.mp3"
        let reference = try ReferenceAudio(file)
        let sink = try ExtraNullSink(sampleRate: 44100, channels: 2, server: try server.address())
        let name = SharedSoundServerConnectionTests.uniqueName()
        let player = try Self.player(on: sink.name, server: server, name: name)
        let events = EventLog(player)
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/\(file)")
        try await player.wait(for: "a second played", within: 10) { ($0.position ?? 0) >= 1 }
        let streams = try SoundServerRestartTests.sinkInputs(named: name, on: server)
        #expect(streams.count == 1, "\(streams)")

        try Self.suspend(sink, true, on: server)
        defer { try? Self.suspend(sink, false, on: server) }
        try await Task.sleep(for: .milliseconds(200))
        let stoppedAt = try #require(player.position)
        // More than two stall timeouts: the stream is made again at least once.
        try await Task.sleep(for: .milliseconds(2500))
        #expect(player.state == .playing, "\(player.state) while the sink is suspended")
        #expect(abs((player.position ?? 0) - stoppedAt) < 0.3, "moved from \(stoppedAt) s while nothing played")
        let now = try await Self.streamMadeAgain(named: name, replacing: streams, on: server)
        #expect(now.count == 1 && now != streams, "streams \(streams) before the stall, \(now) after")

        // Paused while the sink comes back and the recording starts, so that all of what plays
        // from the resume is heard.
        player.pause()
        try Self.suspend(sink, false, on: server)
        let recorder = MonitorRecorder(sink: sink.name, server: try server.address())
        try await recorder.start()
        player.resume()
        let recording = try await player.endRecording(recorder, events: events, within: 15)
        let heardFrom = try SoundServerRestartTests.expectRestOfTrack(in: recording, reference: reference)
        #expect(abs(heardFrom - stoppedAt) < 0.3, "heard from \(heardFrom) s after the stall, stopped at \(stoppedAt) s")
    }

    @Test("a PipeWire stream unlinked from its sink is made again, and the whole track is heard, nothing twice")
    func unlinkedPipeWireStream() async throws {
        let server = SoundServer.pipeWire
        try await server.expectPlayed("StalledStreamTests") { try await playUnlinked(on: server) }
    }

    /// Plays a track on `server`, unlinks its stream a second in, and records all of it.
    /// Returns why what was heard is not the whole track (`nil` when it is); what does not
    /// depend on the recording is expected here.
    private func playUnlinked(on server: SoundServer) async throws -> String? {
        let file = "cbr-44k-stereo-short.mp3"
        let reference = try ReferenceAudio(file)
        let sinkName = try server.sink()
        let name = SharedSoundServerConnectionTests.uniqueName()
        let recorder = MonitorRecorder(sink: sinkName, server: try server.address())
        try await recorder.start()
        let player = try Self.player(on: sinkName, server: server, name: name)
        let events = EventLog(player)
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/\(file)")
        try await player.wait(for: "a second played", within: 10) { ($0.position ?? 0) >= 1 }
        let streams = try SoundServerRestartTests.sinkInputs(named: name, on: server)

        let unlinkedAt = try #require(player.position)
        try Self.unlink(nodeNamed: name, from: sinkName, on: server)
        try await Task.sleep(for: .milliseconds(300))
        let stoppedAt = try #require(player.position)
        // Made again by the sink, not linked again by the session manager.
        let now = try await Self.streamMadeAgain(named: name, replacing: streams, on: server)
        #expect(now.count == 1 && now != streams, "streams \(streams) before the unlink, \(now) after")
        let recording = try await player.endRecording(recorder, events: events, within: 15)
        #expect(streams.count == 1, "\(streams)")
        // Heard from the start to the end: the silence of the stall, which the comparison sets
        // aside, comes where the audio stopped, and the new stream plays on from there.
        let rest = try SoundServerRestartTests.restOfTrack(in: recording, reference: reference)
        let stall = "unlinked at \(unlinkedAt) s, stopped at \(stoppedAt) s"
        guard rest.heardFrom < 0.1 else {
            return "the track was heard from \(rest.heardFrom) s on, not from its start (its first part is missing); \(stall)"
        }
        return rest.failure.map { "\($0); \(stall)" }
    }

    /// Takes away the links from the PipeWire node named `node` to `sink`, with one `pw-link`:
    /// all channels at once (a `pw-link` per port would silence one channel some quanta
    /// before the other). Fails when there was no such link.
    static func unlink(nodeNamed node: String, from sink: String, on server: SoundServer) throws {
        // The server's runtime folder holds its pulse socket (ADDRESS is unix:RUNTIME/pulse/native).
        let socket = try server.address().replacingOccurrences(of: "unix:", with: "")
        let runtime = URL(fileURLWithPath: socket).deletingLastPathComponent().deletingLastPathComponent().path
        let environment = ["XDG_RUNTIME_DIR": runtime, "PIPEWIRE_REMOTE": "pipewire-0"]
        // `pw-link -l` lists each input port, then a line "  |<- NODE:PORT" per link into it.
        let listing = try Shell.run("pw-link", ["-l"], environment: environment)
        guard listing.contains("|<- \(node):") else {
            throw Shell.Failure(description: "no link from \(node) to \(sink) in pw-link -l:\n\(listing)")
        }
        try Shell.run("pw-link", ["-d", node, sink], environment: environment)
    }

    @Test("a sink that never plays again: soundServerUnavailable naming the stall, once PulseAudioSink.lossesTolerated new streams stalled too")
    func sinkNeverPlaysAgain() async throws {
        let server = SoundServer.pulseAudio
        let sink = try ExtraNullSink(sampleRate: 44100, channels: 2, server: try server.address())
        let player = try Self.player(on: sink.name, server: server, name: SharedSoundServerConnectionTests.uniqueName())
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        try await player.wait(for: "half a second played", within: 10) { ($0.position ?? 0) >= 0.5 }
        try Self.suspend(sink, true, on: server)
        defer { try? Self.suspend(sink, false, on: server) }
        let stalledAt = ContinuousClock.now
        // Each stream gets 1 s: the first stall and the tolerated ones after it take a little
        // over 6 s in all.
        let final = try await player.finish(within: 20)
        let took = (ContinuousClock.now - stalledAt).inSeconds
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final) after \(took) s")
            return
        }
        #expect(error.description.contains("played none of the stream's audio for 1.0 s"), "\(error)")
        #expect(error.description.contains("went away \(PulseAudioSink.lossesTolerated + 1) times"), "\(error)")
        // The first stall is timed from the last progress, a little before the suspend.
        #expect(took >= Double(PulseAudioSink.lossesTolerated + 1) - 0.5, "failed after \(took) s: \(error)")
    }
}
