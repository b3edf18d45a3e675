import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// HLS with MP3 segments, made by ffmpeg's segment muxer and served by nginx (VOD) or by the
/// fault server (live, and segments that drop). The PCM played must equal the reference decode
/// of the unsegmented file.
@Suite("HLS streams", .serialized, .needsTestServers)
struct HLSTests {
    static func http(_ path: String) throws -> String { "\(try TestEnvironment.http())/\(path)" }

    /// The paths of every request in the fault server's log, in order.
    static func faultPaths() throws -> [String] {
        let log = try String(contentsOfFile: try TestEnvironment.value("STREAMPLAY_TEST_FAULTS_LOG"), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String
        }
    }

    @Test("VOD playlists play exactly the unsegmented file", arguments: [
        "hls/vod/index.m3u8", "hls/tagged/index.m3u8", "hls/byterange/index.m3u8", "hls/aes/index.m3u8",
    ])
    func vod(playlist: String) async throws {
        let reference = try ReferenceAudio("hls/source.mp3")
        let result = try await playToWAV(try Self.http(playlist))
        #expect(result.state == .ended)
        #expect(result.samples.count == reference.samples.count, "\(playlist)")
        #expect(SampleDifference.between(result.samples, reference.samples) == nil, "\(playlist): PCM differs from the reference decode")
        let duration = result.events.compactMap { if case .durationKnown(let seconds) = $0 { seconds } else { nil } }.first
        #expect(abs((duration ?? 0) - Double(reference.frameCount) / Double(reference.sampleRate)) < 0.05,
                "duration from the playlist: \(String(describing: duration))")
    }

    @Test("byte ranges are fetched as Range requests of one file")
    func byteRangeRequests() async throws {
        _ = try await playToWAV(try Self.http("hls/byterange/index.m3u8"))
        let requests = try accessLogEntries(for: "/hls/byterange/all.mp3")
        #expect(requests.count >= 2)
        #expect(requests.allSatisfy { $0.status == 206 && $0.range.hasPrefix("bytes=") }, "\(requests)")
    }

    @Test("a seek lands on the frame: inside a segment, and on a segment's first frame")
    func seek() async throws {
        let reference = try ReferenceAudio("hls/source.mp3")
        let text = try String(contentsOfFile: "\(try TestEnvironment.media())/hls/vod/index.m3u8", encoding: .utf8)
        guard case .media(let playlist) = try HLSPlaylistParser.parse(text, url: try Self.http("hls/vod/index.m3u8")) else {
            Issue.record("not a media playlist")
            return
        }
        let boundary = playlist.startTime(ofSegment: 2)
        for start in [9.5, boundary] {
            let result = try await playToWAV(try Self.http("hls/vod/index.m3u8"), startingAt: start)
            #expect(result.state == .ended)
            // Segment starts are whole MPEG frames: snap like the engine (1152 samples a frame).
            let frame = start == boundary
                ? Int((start * 44100 / 1152).rounded()) * 1152
                : Int((start * 44100).rounded(.down))
            let expected = Array(reference.samples[(frame * 2)...])
            #expect(abs(result.samples.count - expected.count) <= 2, "start \(start)")
            #expect(SampleDifference.between(result.samples.prefix(44100 * 2), expected.prefix(44100 * 2)) == nil, "start \(start): the first second differs")
            #expect(SampleDifference.between(result.samples.suffix(1000), expected.suffix(1000)) == nil, "start \(start): the end differs")
        }
    }

    @Test("AES-128: a key that cannot be fetched fails the play with the HTTP status")
    func missingKey() async throws {
        let result = try await playToWAV(try Self.http("hls/aes-badkey/index.m3u8"))
        guard case .failed(let error) = result.state, error.status == 404, let url = error.url else {
            Issue.record("expected HTTP 404 for the key, got \(result.state)")
            return
        }
        #expect(url.hasSuffix("missing.bin"))
    }

    @Test("a master playlist plays the variant the bandwidth allows")
    func master() async throws {
        let high = try await playToWAV(try Self.http("hls/master.m3u8"))
        #expect(SampleDifference.between(high.samples, (try ReferenceAudio("hls/aac/stream")).samples) == nil, "the default is the highest variant, AAC")
        let middle = try await playToWAV(try Self.http("hls/master.m3u8")) { $0.hlsMaximumBandwidth = 200_000 }
        #expect(SampleDifference.between(middle.samples, (try ReferenceAudio("hls/source.mp3")).samples) == nil, "a cap of 200 kbit/s picks the 140 kbit/s MP3 variant")
        let low = try await playToWAV(try Self.http("hls/master.m3u8")) { $0.hlsMaximumBandwidth = 100_000 }
        #expect(low.state == .ended)
        #expect(SampleDifference.between(low.samples, (try ReferenceAudio("hls/low/source.mp3")).samples) == nil, "a cap of 100 kbit/s picks the 64 kbit/s variant")
        let aacOnly = try await playToWAV(try Self.http("hls/master-aac-only.m3u8"))
        #expect(aacOnly.state == .ended)
        #expect(SampleDifference.between(aacOnly.samples, (try ReferenceAudio("hls/aac/stream")).samples) == nil, "the AAC-only master plays its AAC variant")
    }

    @Test("a discontinuity to another rate and channel count switches the output cleanly")
    func discontinuity() async throws {
        let sink = RecordingSink()
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        player.play(try Self.http("hls/discontinuity/index.m3u8"))
        #expect(try await player.finish(within: 60) == .ended)
        let first = try ReferenceAudio("hls/discontinuity/partA.mp3")
        let second = try ReferenceAudio("hls/discontinuity/partB.mp3")
        let parts = sink.parts
        try #require(parts.count == 2, "formats: \(parts.map(\.format))")
        #expect(parts[0].format == AudioFormat(sampleRate: first.sampleRate, channels: first.channels))
        #expect(parts[1].format == AudioFormat(sampleRate: second.sampleRate, channels: second.channels))
        #expect(SampleDifference.between(parts[0].samples, first.samples) == nil, "the first stream (\(parts[0].samples.count) of \(first.samples.count) samples)")
        #expect(SampleDifference.between(parts[1].samples, second.samples) == nil, "the second stream (\(parts[1].samples.count) of \(second.samples.count) samples)")
        let formats = log.all.compactMap { if case .formatKnown(let format) = $0 { format } else { nil } }
        #expect(formats.count == 2)
    }

    @Test("a discontinuity within the first prebuffer: the first stream starts and plays out before the sink reopens")
    func discontinuityBeforeOutputStarts() async throws {
        let recording = RecordingSink()
        let sink = SinkCallLog(recording)
        var configuration = PlayerConfiguration(output: .custom { sink })
        // Longer than the first stream (7.9 s): its format changes before output would start.
        configuration.prebuffer = 10
        let player = Player(configuration: configuration)
        player.play(try Self.http("hls/discontinuity/index.m3u8"))
        #expect(try await player.finish(within: 60) == .ended)
        let first = try ReferenceAudio("hls/discontinuity/partA.mp3")
        let second = try ReferenceAudio("hls/discontinuity/partB.mp3")
        let opens = sink.calls.indices.filter { sink.calls[$0].hasPrefix("open") }
        try #require(opens.count == 2, "\(sink.calls)")
        #expect(Array(sink.calls[opens[0]..<opens[1]]) == ["open \(first.sampleRate)/\(first.channels)", "write", "start", "drain"],
                "the first stream is written, started and played out before the sink reopens: \(sink.calls)")
        #expect(sink.calls[opens[1]] == "open \(second.sampleRate)/\(second.channels)")
        let parts = recording.parts
        try #require(parts.count == 2, "formats: \(parts.map(\.format))")
        #expect(SampleDifference.between(parts[0].samples, first.samples) == nil, "the first stream (\(parts[0].samples.count) of \(first.samples.count) samples)")
        #expect(SampleDifference.between(parts[1].samples, second.samples) == nil, "the second stream (\(parts[1].samples.count) of \(second.samples.count) samples)")
    }

    @Test("a live playlist that grows while playing: every segment once, in order, then its end")
    func live() async throws {
        let reference = try ReferenceAudio("hls/live/source.mp3")
        let id = UUID().uuidString.prefix(8)
        let url = "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))/hls-live/\(id)/index.m3u8"
        var (configuration, path) = wavConfiguration()
        configuration.logger.logLevel = .debug
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        let log = EventLog(player)
        player.play(url)
        try await player.wait(for: "playing", within: 20) { $0.state == .playing }
        #expect(player.duration == nil, "a live stream has no duration")
        player.seek(to: 1)
        #expect(try await player.finish(within: 60) == .ended)
        let samples = try PCM.wavSamples(path: path).samples
        #expect(SampleDifference.between(samples, reference.samples) == nil, "\(samples.count) of \(reference.samples.count) samples")
        #expect(log.all.contains { if case .seekRefused = $0 { true } else { false } })
        let segments = try Self.faultPaths().filter { $0.hasPrefix("/hls-live/\(id)/") && $0.hasSuffix(".mp3") }
        #expect(!segments.isEmpty)
        #expect(Set(segments).count == segments.count, "a segment was fetched twice: \(segments)")
    }

    /// A copy of the VOD playlist next to it whose segment URIs go through the fault server:
    /// `fault(index)` names the fault path of each segment ("plain", "drop-after/N", ...).
    static func faultPlaylist(_ fault: (Int) -> String) throws -> (url: String, token: String, remove: () -> Void) {
        let media = try TestEnvironment.media()
        let faults = try TestEnvironment.value("STREAMPLAY_TEST_FAULTS")
        let token = String(UUID().uuidString.prefix(8))
        let text = try String(contentsOfFile: "\(media)/hls/vod/index.m3u8", encoding: .utf8)
        var index = 0
        let rewritten = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard !line.hasPrefix("#"), !line.isEmpty else { return String(line) }
            defer { index += 1 }
            return "\(faults)/\(fault(index))/hls/vod/\(line)?t=\(token)"
        }.joined(separator: "\n")
        let name = "hls/vod/faults-\(token).m3u8"
        try rewritten.write(toFile: "\(media)/\(name)", atomically: true, encoding: .utf8)
        return (try http(name), token, { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") })
    }

    /// The fault server's log entries for requests whose query is `t=token`.
    static func faultEntries(token: String) throws -> [[String: Any]] {
        let log = try String(contentsOfFile: try TestEnvironment.value("STREAMPLAY_TEST_FAULTS_LOG"), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }.filter { $0["query"] as? String == "t=\(token)" }
    }

    @Test("a segment whose connection drops is resumed at the byte it stopped at")
    func segmentDrop() async throws {
        let reference = try ReferenceAudio("hls/source.mp3")
        let playlist = try Self.faultPlaylist { $0 == 1 ? "drop-after/20000" : "plain" }
        defer { playlist.remove() }
        let result = try await playToWAV(playlist.url)
        #expect(result.state == .ended)
        #expect(SampleDifference.between(result.samples, reference.samples) == nil)
        #expect(result.statistics.reconnectCount >= 1)
        let second = try Self.faultEntries(token: playlist.token).filter { ($0["path"] as? String)?.hasSuffix("seg001.mp3") == true }
        #expect(second.count == 2, "\(second)")
        #expect(second.last?["range"] as? String == "bytes=20000-", "the resume asks for the rest: \(second)")
    }

    @Test("a segment missing in the middle fails the play with its status, after the audio before it")
    func missingSegment() async throws {
        let reference = try ReferenceAudio("hls/source.mp3")
        let playlist = try Self.faultPlaylist { $0 == 2 ? "plain/missing" : "plain" }  // no such file: 404
        defer { playlist.remove() }
        let result = try await playToWAV(playlist.url)
        guard case .failed(let error) = result.state, error.status == 404, let url = error.url else {
            Issue.record("expected HTTP 404 for the third segment, got \(result.state)")
            return
        }
        #expect(url.contains("seg002.mp3"))
        #expect(!result.samples.isEmpty && reference.samples.starts(with: result.samples),
                "the audio before the missing segment plays: \(result.samples.count) samples")
        let third = try Self.faultEntries(token: playlist.token).filter { ($0["path"] as? String)?.hasSuffix("seg002.mp3") == true }
        #expect(third.count == 1, "a 404 is not retried: \(third)")
    }

    @Test("with reconnection turned off, a dropped segment fails the play as a lost connection")
    func segmentDropWithoutReconnect() async throws {
        let playlist = try Self.faultPlaylist { $0 == 1 ? "drop-after/20000" : "plain" }
        defer { playlist.remove() }
        let result = try await playToWAV(playlist.url) { $0.reconnect.maximumRetries = 0 }
        guard case .failed(let error) = result.state, error.code == .connectionLost, let url = error.url else {
            Issue.record("expected connectionLost, got \(result.state)")
            return
        }
        #expect(url.contains("seg001.mp3"))
        #expect(result.statistics.reconnectCount == 0)
    }
}
