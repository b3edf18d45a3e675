import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// Pause, resume and stop on the real sound server, checked on what the monitor heard.
@Suite("Pause, resume and stop", .serialized, .needsTestServers)
struct PlaybackControlTests {
    /// Frames from `start` on where `output` keeps following the track from `track` on.
    static func stretchLength(_ output: [Int16], from start: Int, track: Int, reference: ReferenceAudio) -> Int {
        let channels = reference.channels
        var length = 0
        while (start + length + 1) * channels <= output.count, (track + length + 1) * channels <= reference.samples.count,
              (0..<channels).allSatisfy({ output[(start + length) * channels + $0] == reference.samples[(track + length) * channels + $0] }) {
            length += 1
        }
        return length
    }

    @Test("pause holds the position and the sound; resume goes on with no sample lost or repeated",
          arguments: SoundServer.all)
    func pauseAndResume(server: SoundServer) async throws {
        let file = "cbr-44k-stereo.mp3"
        let reference = try ReferenceAudio(file)
        let recorder = MonitorRecorder(sink: try server.sink(), server: try server.address())
        try await recorder.start()
        let player = Player(configuration: PlayerConfiguration(output: try server.output()))
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/\(file)")
        try await player.wait(for: "1.5 s played", within: 10) { ($0.position ?? 0) >= 1.5 }
        player.pause()
        #expect(player.state == .paused)
        try await Task.sleep(for: .milliseconds(300))
        let pausedAt = try #require(player.position)
        try await Task.sleep(for: .milliseconds(700))
        #expect(abs((player.position ?? 0) - pausedAt) < 0.005, "the position moved while paused")
        player.resume()
        #expect(player.state == .playing)
        try await player.wait(for: "1 s more", within: 10) { ($0.position ?? 0) >= pausedAt + 1 }
        let stopStarted = ContinuousClock.now
        player.stop()
        #expect(ContinuousClock.now - stopStarted < .seconds(1), "stop returns promptly")
        #expect(player.state == .idle)
        try await Task.sleep(for: .milliseconds(200))
        let recording = try await recorder.stop()

        #expect(events.states.starts(with: [.idle, .connecting, .buffering, .playing, .paused, .playing, .idle]),
                "states: \(events.states)")
        // The recording: the track from its start, a silence, then the track again from
        // exactly where it stopped.
        let anchor = try #require(PCM.find(reference.samples[(22050 * 2)..<(22306 * 2)], in: recording, channels: 2),
                                  "the first second is not in the recording")
        let start = anchor - 22050
        let first = Self.stretchLength(recording, from: start + 4410, track: 4410, reference: reference) + 4410
        var gapEnd = start + first
        while gapEnd * 2 < recording.count, recording[gapEnd * 2] == 0, recording[gapEnd * 2 + 1] == 0 { gapEnd += 1 }
        let gap = Double(gapEnd - start - first) / 44100
        #expect(gap > 0.8, "paused for about a second, heard \(gap) s of silence")
        let resumedAt = try #require(PCM.locate(recordingFrame: gapEnd + 4410, recording: recording, in: reference.samples,
                                                channels: 2).map { $0 - 4410 }, "the audio after the resume is not the track")
        // The track goes on where it stopped, as the monitor shows it: PulseAudio rewinds the null
        // sink on cork (the monitor has already recorded what the rewind takes back) and may render
        // the first block after the uncork as silence, as at a start. That window is under 10 ms
        // in a normal run and grows with the slowdown of a sanitizer run: 50 ms is allowed.
        #expect(abs(resumedAt - first) < 2205, "resumed at frame \(resumedAt), paused at \(first)")
        let second = Self.stretchLength(recording, from: gapEnd, track: resumedAt, reference: reference)
        #expect(second > 44100 / 2, "after the resume the track goes on (\(second) frames matched)")
    }

    @Test("stop mid-stream returns promptly and leaves no engine thread")
    func stopReleasesThreads() async throws {
        for output in [AudioOutput.pulseAudio(sink: try TestEnvironment.pulseSink()), .null] {
            let player = Player(configuration: PlayerConfiguration(output: output))
            player.play("\(try TestEnvironment.http())/slow/cbr-44k-stereo.mp3")
            try await player.wait(for: "playing", within: 10) { $0.state == .playing }
            #expect(!engineThreadNames().isEmpty, "engine threads while playing")
            let started = ContinuousClock.now
            player.stop()
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(player.state == .idle)
            #expect(engineThreadNames().isEmpty, "left running: \(engineThreadNames())")
        }
    }

    @Test("stop while connecting to a server that never answers returns promptly")
    func stopWhileConnecting() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .null))
        player.play("\(try TestEnvironment.blackHole())/never.mp3")
        try await Task.sleep(for: .milliseconds(300))
        #expect(player.state == .connecting)
        let started = ContinuousClock.now
        player.stop()
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(engineThreadNames().isEmpty)
    }

    @Test("events: connecting, buffering, playing, ended; format, duration, buffering progress")
    func eventSequence() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: try TestEnvironment.pulseSink())))
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/cbr-44k-mono.mp3")
        #expect(try await player.finish(within: 30) == .ended)
        try await Task.sleep(for: .milliseconds(50))
        #expect(events.states == [.idle, .connecting, .buffering, .playing, .ended])
        #expect(events.all.contains(.formatKnown(AudioFormat(sampleRate: 44100, channels: 1))))
        #expect(events.all.contains { if case .durationKnown(let d) = $0 { abs(d - 6) < 0.05 } else { false } })
        #expect(events.all.contains(.bufferingProgress(1)))
        // Ended means heard: the position reached the end.
        #expect(abs((player.position ?? 0) - 6) < 0.05)
        player.stop()
    }

    @Test("a play replaces the one before; seek after the end plays again from there")
    func replaceAndSeekAfterEnd() async throws {
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/cbr-44k-mono.mp3")
        #expect(try await player.finish(within: 30) == .ended)
        player.seek(to: 5)
        // The new play shows its start at once. The file sink takes audio faster than real time,
        // so the play may already have moved on (under a sanitizer, with this thread held up, it
        // has run to its end), but never from before the start. That the seek made a new play is
        // told by the states, and that it played from 5 s by the audio below.
        let position = try #require(player.position)
        #expect(position > 5 - 0.001 && position < 6 + 0.05, "\(position)")
        #expect(try await player.finish(within: 30) == .ended)
        player.stop()
        let deadline = ContinuousClock.now + .seconds(5)
        while events.states.count(where: { $0 == .ended }) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let states = events.states
        let firstEnd = try #require(states.firstIndex(of: .ended), "\(states)")
        #expect(states[(firstEnd + 1)...].contains(.playing), "the seek played again: \(states)")
        #expect(states.count(where: { $0 == .ended }) == 2, "\(states)")
        let reference = try ReferenceAudio("cbr-44k-mono.mp3")
        let output = try PCM.wavSamples(path: path).samples
        #expect(SampleDifference.between(output, reference.samples + reference.samples[(5 * 44100)...]) == nil)
    }
}
