import Foundation
import StreamPlayTesting
import Testing
@testable import StreamPlay

/// Internet radio in AAC and Ogg from the real Icecast server: an ADTS mount whose title is
/// changed through the admin interface (ICY metadata, as for MP3), and Vorbis and Opus mounts
/// whose source starts a new chained stream, with a new comment header, for a new title.
@Suite("Internet radio in AAC and Ogg (Icecast)", .serialized, .needsTestServers)
struct RadioFormatTests {
    static func url(mount variable: String) throws -> String {
        "\(try TestEnvironment.value("STREAMPLAY_TEST_ICECAST"))\(try TestEnvironment.value(variable))"
    }

    /// Sets a mount's title through Icecast's admin interface.
    static func setTitle(_ title: String, mount variable: String) throws {
        let mount = try TestEnvironment.value(variable)
        let song = title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? title
        try Shell.run("curl", ["-sf", "-u", try TestEnvironment.value("STREAMPLAY_TEST_ICECAST_ADMIN"),
                               "\(try TestEnvironment.value("STREAMPLAY_TEST_ICECAST"))/admin/metadata?mount=\(mount)&mode=updinfo&song=\(song)"])
    }

    static func titles(_ events: EventLog) -> [String] {
        events.all.compactMap { if case .metadata(let metadata) = $0 { metadata.title } else { nil } }
    }

    /// Whether a stretch of at least half a second of what was heard is the reference's audio:
    /// the station loops the file, so a stretch is found by exact match of a short window
    /// (tried every 50 ms, past the decoder's first frames after a join) and checked up to the
    /// loop's join.
    static func heardReference(_ samples: [Int16], _ reference: ReferenceAudio) -> Bool {
        let channels = reference.channels, rate = reference.sampleRate
        for start in stride(from: rate / 2, to: samples.count / channels - rate / 2, by: rate / 20) {
            guard let track = PCM.locate(recordingFrame: start, recording: samples, in: reference.samples, channels: channels) else { continue }
            let length = min(rate * 2, reference.frameCount - track, samples.count / channels - start)
            guard length >= rate / 2 else { continue }
            let snr = PCM.signalToNoise(samples[(start * channels)..<((start + length) * channels)],
                                        reference.samples[(track * channels)..<((track + length) * channels)])
            if snr > 30 { return true }
        }
        return false
    }

    @Test("an AAC (ADTS) mount plays through FFmpeg, and a title set through the admin interface arrives as a metadata event")
    func aacMount() async throws {
        func setTitle(_ title: String) throws { try Self.setTitle(title, mount: "STREAMPLAY_TEST_ICECAST_AAC_MOUNT") }
        let first = "AAC Song \(UUID().uuidString.prefix(6))"
        try setTitle(first)
        let reference = try ReferenceAudio("formats/radio.aac")
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let events = EventLog(player)
        player.play(try Self.url(mount: "STREAMPLAY_TEST_ICECAST_AAC_MOUNT"))
        try await player.wait(for: "the first title", within: 15) { _ in Self.titles(events).contains(first) }
        let second = "Second AAC Song – \(UUID().uuidString.prefix(6))"
        try setTitle(second)
        try await player.wait(for: "the new title", within: 20) { _ in Self.titles(events).contains(second) }
        #expect(player.metadata?.title == second)
        #expect(player.format == AudioFormat(sampleRate: reference.sampleRate, channels: reference.channels))
        #expect(player.duration == nil, "a live stream has no duration")
        try await player.wait(for: "four seconds heard", within: 15) { _ in sink.samples.count > 44100 * 2 * 4 }
        player.stop()
        let heard = sink.samples
        let matched = Self.heardReference(heard, reference)
        #expect(matched, "the AAC heard (\(heard.count / 2) frames) is not the station's file, decoded")
    }

    @Test("an Ogg mount plays, and each chained stream's title arrives as a metadata event",
          arguments: [("STREAMPLAY_TEST_ICECAST_VORBIS_MOUNT", "formats/tone.ogg"),
                      ("STREAMPLAY_TEST_ICECAST_OPUS_MOUNT", "formats/tone.opus")])
    func oggMount(mount variable: String, file: String) async throws {
        let titleFile = try TestEnvironment.value("STREAMPLAY_TEST_ICECAST_OGG_TITLE_FILE")
        let reference = try ReferenceAudio(file)
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let events = EventLog(player)
        player.play(try Self.url(mount: variable))
        // The stream being sent has a title already: the listener gets its headers first.
        try await player.wait(for: "the first title", within: 15) { _ in !Self.titles(events).isEmpty }
        let next = "Ogg Song \(UUID().uuidString.prefix(6))"
        // The source names its next chained stream (the file played again) with this title.
        try next.write(toFile: titleFile, atomically: true, encoding: .utf8)
        try await player.wait(for: "the next chained stream's title", within: 25) { _ in Self.titles(events).contains(next) }
        #expect(player.metadata?.title == next)
        #expect(player.state == .playing)
        #expect(player.duration == nil, "a live stream has no duration")
        #expect(player.format == AudioFormat(sampleRate: reference.sampleRate, channels: reference.channels))
        player.stop()
        let heard = sink.samples
        let matched = Self.heardReference(heard, reference)
        #expect(matched, "\(file): what was heard (\(heard.count / reference.channels) frames) is not the station's file, decoded")
    }

    @Test("a title set on the Vorbis mount through the admin interface arrives as a metadata event: Icecast starts a new chained stream with it")
    func vorbisAdminTitle() async throws {
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let events = EventLog(player)
        player.play(try Self.url(mount: "STREAMPLAY_TEST_ICECAST_VORBIS_MOUNT"))
        try await player.wait(for: "the first title", within: 15) { _ in !Self.titles(events).isEmpty }
        let title = "Admin Ogg Song - \(UUID().uuidString.prefix(6))"
        try Self.setTitle(title, mount: "STREAMPLAY_TEST_ICECAST_VORBIS_MOUNT")
        // Icecast's own chained stream starts at once, well before the source's next one.
        try await player.wait(for: "the title set through the admin interface", within: 5) { _ in Self.titles(events).contains(title) }
        #expect(player.state == .playing)
        player.stop()
    }
}
