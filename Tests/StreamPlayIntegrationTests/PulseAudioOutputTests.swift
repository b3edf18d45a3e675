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
        let reference = try ReferenceAudio(file)
        var attempt = 1
        while true {
            let play = try await Self.recordPlay(of: file, reference: reference, on: server)
            if attempt <= server.glitchRetries, !play.heardAsExpected(on: server) {
                // Reported, so that a glitch that comes more often shows in the log.
                print("PulseAudioOutputTests: \(server) \(file), play \(attempt) glitched, played again: \(play.failureMessage(on: server))")
                attempt += 1
                continue
            }
            let comparison = play.comparison
            #expect(comparison.aligned, "\(server) \(file): the reference was not found in the recording")
            #expect(comparison.complete, "\(server) \(file): the recording ends before the track does")
            #expect(comparison.silentLead <= 4410, "\(server) \(file): \(comparison.silentLead) frames lost at the start")
            // A server that ran dry (a loaded machine's scheduling) records silence and plays on
            // late, which changes no sample: the audio is then compared with such silences cut out
            // of both sides. They are bounded, and reported with the underflows the sink counted
            // (PulseAudio counts one at every end of play, PipeWire none).
            #expect(comparison.silentGapFrames <= reference.sampleRate / 2,
                    "\(server) \(file): \(comparison.silentGapFrames) frames of silence where the track has sound (\(play.underflows) underflows)")
            #expect(server.played(play.content), "\(play.failureMessage(on: server))")
            return
        }
    }

    /// One play of `file` to a null sink of its own format on `server`, recorded from the sink's
    /// monitor and held against the reference.
    struct RecordedPlay {
        let file: String
        let recording: [Int16]
        let reference: ReferenceAudio
        let comparison: MonitorComparison
        /// ``comparison``, or when the server ran dry, the comparison with silences cut out of
        /// both sides.
        let content: MonitorComparison
        let underflows: Int

        func heardAsExpected(on server: SoundServer) -> Bool {
            comparison.aligned && comparison.complete && comparison.silentLead <= 4410
                && comparison.silentGapFrames <= reference.sampleRate / 2 && server.played(content)
        }

        func failureMessage(on server: SoundServer) -> String {
            "\(server) \(file): aligned \(content.aligned), complete \(content.complete), \(content.mismatchedFrames) frames differ from mpg123 -s (\(content.diagnosis); \(underflows) underflows reported); stretches (recording frame, track frame): \(SeekTests.segments(of: recording, in: reference).map { "\($0.output)→\($0.track)" })"
        }
    }

    static func recordPlay(of file: String, reference: ReferenceAudio, on server: SoundServer) async throws -> RecordedPlay {
        let address = try server.address()
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
        let channels = reference.channels
        let content = comparison.silentGapFrames == 0 ? comparison : MonitorComparison(
            recording: PCM.withoutSilentRuns(recording, channels: channels, atLeast: PCM.shortestWait),
            reference: ReferenceAudio(reference, samples: PCM.withoutSilentRuns(reference.samples, channels: channels, atLeast: PCM.shortestWait)))
        return RecordedPlay(file: file, recording: recording, reference: reference, comparison: comparison,
                            content: content, underflows: underflows)
    }

    /// The position is written frames minus `latencyFrames`. A write blocks while the stream is
    /// full, after the server took part of it: that part is queued (in the server's latency) but
    /// not yet counted as written, and the position lagged by it, up to a decode chunk (about
    /// 50 ms, what the harness's position scenario showed). On a corked stream nothing plays, so
    /// what a blocked write took must enter the latency only once the write returns.
    @Test("a blocked write's frames the server took are left out of latencyFrames", arguments: SoundServer.all)
    func latencyDuringBlockedWrite(server: SoundServer) async throws {
        let address = try server.address()
        let nullSink = try ExtraNullSink(sampleRate: 44100, channels: 2, server: address)
        let sink = PulseAudioSink(server: address, sinkName: nullSink.name, targetLatency: 0.2)
        defer { sink.close() }
        let format = AudioFormat(sampleRate: 44100, channels: 2)
        try sink.open(format: format)
        let second = [UInt8](repeating: 1, count: format.sampleRate * format.bytesPerFrame)
        // The bytes the write took, once it returned (-1: it threw).
        let written = LockedBox<Int?>(nil)
        let writing = LockedBox(false)
        let writer = EngineThread(name: "sp-test-writer") {
            writing.set(true)
            let count = second.withUnsafeBytes { try? sink.write($0) }
            written.set(count ?? -1)
        }
        let started = ContinuousClock.now
        while !writing.get(), ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Time for the server to take what the corked stream holds, and the write to block.
        try await Task.sleep(for: .milliseconds(400))
        let whileBlocked = sink.latencyFrames
        #expect(written.get() == nil, "\(server): a second of audio fit in a corked stream")
        sink.interrupt()
        writer.join()
        let taken = (written.get() ?? -1) / format.bytesPerFrame
        // Enough to tell from nothing: the stream takes its target latency (0.2 s) while corked.
        #expect(taken >= format.sampleRate / 20 && taken < format.sampleRate,
                "\(server): the interrupted write took \(taken) frames")
        // The latency also holds the device's own (even while corked), the same before and after.
        let afterReturn = sink.latencyFrames
        #expect(abs(afterReturn - whileBlocked - taken) <= format.sampleRate / 100,
                "\(server): latency \(whileBlocked) frames while the write blocked, \(afterReturn) once it returned having taken \(taken)")
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
        func failure(_ final: PlayerState, timeout: Double) -> Bool {
            guard case .failed(let error) = final, error.code == .soundServerUnavailable,
                  error.reason?.contains("did not answer for \(timeout) s") == true else {
                Issue.record("the player with a \(timeout) s timeout: expected soundServerUnavailable, did not answer; got \(final)")
                return false
            }
            return true
        }
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        let first = player(timeout: 3), second = player(timeout: 1)
        defer { first.stop(); second.stop() }
        first.play(url)
        // The sink connects at the first decoded audio.
        let waitLimit = ContinuousClock.now + .seconds(10)
        while server.accepted == 0, ContinuousClock.now < waitLimit {
            try await Task.sleep(for: .milliseconds(5))
        }
        let connectedAt = ContinuousClock.now
        #expect(server.accepted == 1, "the first player's connection")
        try await Task.sleep(until: connectedAt + .milliseconds(1500))
        // Decoding went on while the sink waits for the server.
        #expect(first.state == .buffering, "the first player is \(first.state)")

        let secondStarted = ContinuousClock.now
        second.play(url)
        if failure(try await second.finish(within: 10), timeout: 1) {
            let waited = (ContinuousClock.now - secondStarted).inSeconds
            #expect(waited >= 0.9, "the second player failed after \(waited) s, before its own timeout")
        }
        #expect(server.accepted == 2, "the second player connected anew")
        if failure(try await first.finish(within: 10), timeout: 3) {
            let waited = (ContinuousClock.now - connectedAt).inSeconds
            #expect(waited >= 2.8 && waited < 8, "the first player failed \(waited) s after it connected")
        }
    }
}
