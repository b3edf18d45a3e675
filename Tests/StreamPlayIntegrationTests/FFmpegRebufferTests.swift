import Foundation
import Testing
@testable import StreamPlay

/// Links slower than the stream on the FFmpeg path (FLAC, AAC in MP4): the play rebuffers and
/// plays on, as MP3 does (``RebufferTests``), on a real PulseAudio server, and the audio the
/// engine gives the server is still the whole track, sample for sample as the ffmpeg program
/// decodes it, nothing lost or repeated at a rebuffer. (Why that audio and not the monitor's
/// recording: ``WrittenAudioTap``.)
@Suite("Rebuffering through FFmpeg", .serialized, .needsTestServers)
struct FFmpegRebufferTests {
    /// The link's rate as a share of the file's average bitrate: slow enough that a 6 s track
    /// runs dry more than once.
    static let linkShare = 0.6

    @Test("a link at 0.6× the bitrate: buffering then playing again, and the whole track comes out",
          arguments: ["formats/tone.flac", "formats/tone-faststart.m4a", "formats/tone.m4a"])
    func slowLink(file: String) async throws {
        _ = try TestEnvironment.pulseServer()
        let reference = try ReferenceAudio(file)
        let size = try FileManager.default.attributesOfItem(atPath: "\(try TestEnvironment.media())/\(file)")[.size] as? Int ?? 0
        let seconds = Double(reference.frameCount) / Double(reference.sampleRate)
        let rate = Int(Double(size) / seconds * Self.linkShare)
        let url = "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))/throttle/\(rate)/\(file)?\(UUID().uuidString.prefix(8))"

        let sink = try ExtraNullSink(sampleRate: reference.sampleRate, channels: reference.channels)
        let tap = WrittenAudioTap(PulseAudioSink(sinkName: sink.name))
        var configuration = PlayerConfiguration(output: .custom { tap })
        configuration.rebufferRefill = 1
        let player = Player(configuration: configuration)
        let events = EventLog(player)
        player.play(url)
        #expect(try await player.finish(within: seconds / Self.linkShare + 20) == .ended, "\(file)")
        let statistics = player.statistics
        player.stop()

        #expect(statistics.rebufferCount >= 1, "\(file): no rebuffer at \(rate) bytes/s")
        let states = events.states
        let playingToBuffering = zip(states, states.dropFirst()).filter { $0 == .playing && $1 == .buffering }.count
        #expect(playingToBuffering >= 1, "\(file): states \(states)")
        #expect(zip(states, states.dropFirst()).contains { $0 == .buffering && $1 == .playing } && states.filter { $0 == .playing }.count >= 2,
                "\(file): never playing again after buffering: \(states)")
        #expect(events.all.contains { if case .rebuffered = $0 { true } else { false } }, "\(file): no rebuffered event")

        let written = tap.samples
        let exact = PCM.commonPrefixFrames(written, reference.samples, channels: reference.channels)
        #expect(written.count == reference.samples.count && exact == reference.frameCount,
                "\(file): \(written.count / reference.channels) frames written for \(reference.frameCount), the first \(exact) exact; stretches (written frame, track frame): \(SeekTests.segments(of: written, in: reference).map { "\($0.output)→\($0.track)" })")
    }
}
