import Foundation
import Testing
@testable import StreamPlay

/// What the sound server plays is what the file holds: recorded from a null sink's monitor, the
/// audio equals the mpg123 reference sample for sample, on the PulseAudio daemon and on
/// PipeWire's PulseAudio server. Each format gets a null sink of its own rate and channel count,
/// so the server passes samples through unchanged. PipeWire's test graph runs at 44.1 kHz only
/// (it would resample 48 kHz), so it plays the 44.1 kHz files; what it may alter, and how much,
/// is ``SoundServer/alteredTailSignalToNoise``.
@Suite("PulseAudio output", .serialized, .needsTestServers)
struct PulseAudioOutputTests {
    @Test("monitor recording equals the reference", arguments: [
        (SoundServer.pulseAudio, "cbr-44k-stereo-short.mp3"), (.pulseAudio, "vbr-48k-mono.mp3"),
        (.pulseAudio, "cbr-48k-stereo.mp3"), (.pulseAudio, "cbr-44k-mono.mp3"),
        (.pipeWire, "cbr-44k-stereo-short.mp3"), (.pipeWire, "cbr-44k-mono.mp3"),
    ])
    func monitorEqualsReference(server: SoundServer, file: String) async throws {
        let address = try server.address()
        let reference = try ReferenceAudio(file)
        let sink = try ExtraNullSink(sampleRate: reference.sampleRate, channels: reference.channels, server: address)
        let recorder = MonitorRecorder(sink: sink.name, server: address, sampleRate: reference.sampleRate,
                                       channels: reference.channels)
        try await recorder.start()
        let player = Player(configuration: PlayerConfiguration(output: try server.output(sink: sink.name)))
        player.play("\(try TestEnvironment.http())/\(file)")
        #expect(try await player.finish(within: 30) == .ended)
        let underflows = player.underflowCount
        player.stop()
        try await Task.sleep(for: .milliseconds(300))
        let recording = try await recorder.stop()

        let comparison = MonitorComparison(recording: recording, reference: reference)
        #expect(comparison.aligned, "\(server) \(file): the reference was not found in the recording")
        #expect(comparison.complete, "\(server) \(file): the recording ends before the track does")
        #expect(comparison.silentLead <= 4410, "\(server) \(file): \(comparison.silentLead) frames lost at the start")
        // A server that ran dry (a loaded machine's scheduling) records silence and plays on
        // late, which changes no sample: the audio is then compared with such silences cut out
        // of both sides. They are bounded, and reported with the underflows the sink counted
        // (PulseAudio counts one at every end of play, PipeWire none).
        #expect(comparison.silentGapFrames <= reference.sampleRate / 2,
                "\(server) \(file): \(comparison.silentGapFrames) frames of silence where the track has sound (\(underflows) underflows)")
        let channels = reference.channels
        let content = comparison.silentGapFrames == 0 ? comparison : MonitorComparison(
            recording: PCM.withoutSilentRuns(recording, channels: channels, atLeast: PCM.shortestWait),
            reference: ReferenceAudio(reference, samples: PCM.withoutSilentRuns(reference.samples, channels: channels, atLeast: PCM.shortestWait)))
        #expect(server.played(content),
                "\(server) \(file): aligned \(content.aligned), complete \(content.complete), \(content.mismatchedFrames) frames differ from mpg123 -s (\(content.diagnosis); \(underflows) underflows reported); stretches (recording frame, track frame): \(SeekTests.segments(of: recording, in: reference).map { "\($0.output)→\($0.track)" })")
    }

    @Test("an unreachable sound server is a typed error, quickly")
    func unreachableServer() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(server: "unix:/nonexistent/pulse/native")))
        let started = ContinuousClock.now
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3")
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final)")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        player.stop()
    }

    @Test("an unknown sink name is a typed error", arguments: SoundServer.all)
    func unknownSink(server: SoundServer) async throws {
        let player = Player(configuration: PlayerConfiguration(output: try server.output(sink: "no_such_sink")))
        player.play("\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3")
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final, error.code == .soundServerUnavailable else {
            Issue.record("expected soundServerUnavailable, got \(final)")
            return
        }
        player.stop()
    }

    /// A server that hung: it takes the connection and never answers. Each play fails after
    /// its own connect timeout. The second player comes while the first still waits on the
    /// process's one connection, which has been stuck longer than the second would wait: it
    /// connects anew (the server sees a second connection) rather than wait on the stuck one.
    @Test("a server that never answers fails each play after its connect timeout; a stuck connection is made anew")
    func silentServer() async throws {
        let server = try SilentSocketServer()
        func player(timeout: Double) -> Player {
            var configuration = PlayerConfiguration(output: .pulseAudio(server: server.address))
            configuration.soundServerConnectTimeout = timeout
            return Player(configuration: configuration)
        }
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        let first = player(timeout: 3), second = player(timeout: 1)
        defer { first.stop(); second.stop() }
        let started = ContinuousClock.now
        first.play(url)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(first.state == .connecting)
        #expect(server.accepted == 1)
        second.play(url)
        for (player, timeout) in [(second, 1.0), (first, 3.0)] {
            let final = try await player.finish(within: 10)
            let waited = (ContinuousClock.now - started).inSeconds
            guard case .failed(let error) = final, error.code == .soundServerUnavailable,
                  error.reason?.contains("did not answer within \(timeout) s") == true else {
                Issue.record("the player with a \(timeout) s timeout: expected soundServerUnavailable, did not answer; got \(final)")
                continue
            }
            #expect(waited < 3 + 2, "the player with a \(timeout) s timeout failed only after \(waited) s")
        }
        #expect((ContinuousClock.now - started).inSeconds >= 2.4, "the second player waited its 1 s")
        #expect(server.accepted == 2, "the second player connected anew")
    }
}
