import Foundation
import StreamPlayTesting
import Testing
@testable import StreamPlay

/// Internet radio from a real Icecast server (Debian's icecast2), fed with the test track in a
/// loop; titles are changed through Icecast's admin interface while we listen.
@Suite("Internet radio (Icecast)", .serialized, .needsTestServers)
struct RadioTests {
    static func stationURL() throws -> String {
        "\(try TestEnvironment.value("STREAMPLAY_TEST_ICECAST"))\(try TestEnvironment.value("STREAMPLAY_TEST_ICECAST_MOUNT"))"
    }

    static func setTitle(_ title: String) throws {
        let base = try TestEnvironment.value("STREAMPLAY_TEST_ICECAST")
        let mount = try TestEnvironment.value("STREAMPLAY_TEST_ICECAST_MOUNT")
        let song = title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? title
        try Shell.run("curl", ["-sf", "-u", try TestEnvironment.value("STREAMPLAY_TEST_ICECAST_ADMIN"),
                               "\(base)/admin/metadata?mount=\(mount)&mode=updinfo&song=\(song)"])
    }

    static func titles(_ events: EventLog) -> [String] {
        events.all.compactMap { if case .metadata(let metadata) = $0 { metadata.title } else { nil } }
    }

    @Test("titles arrive as metadata events, changes too; the audio has no metadata bytes in it")
    func titlesAndAudio() async throws {
        try Self.setTitle("First Song")
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let events = EventLog(player)
        player.play(try Self.stationURL())
        try await player.wait(for: "the first title", within: 15) { _ in Self.titles(events).contains("First Song") }
        #expect(player.metadata?.title == "First Song")
        let second = "Second Song – \(UUID().uuidString.prefix(6))"
        try Self.setTitle(second)
        try await player.wait(for: "the new title", within: 20) { _ in Self.titles(events).contains(second) }
        #expect(player.duration == nil, "a live stream has no duration")
        #expect(player.state == .playing)

        // Seeking a live stream is refused, and playback goes on.
        player.seek(to: 10)
        try await player.wait(for: "the seek to be refused", within: 5) { _ in
            events.all.contains { if case .seekRefused(let error) = $0 { error.code == .seekNotSupported } else { false } }
        }
        #expect(player.state == .playing)
        try await player.wait(for: "five seconds heard", within: 15) { _ in sink.samples.count > 44100 * 2 * 5 }
        player.stop()

        // Icecast relays the track's bytes; with the metadata taken out they decode to the
        // track itself. Check a stretch of one to three seconds that does not cross the loop's join.
        let samples = sink.samples
        #expect(samples.count > 44100 * 2 * 4, "at least four seconds heard")
        var checked = false
        for start in stride(from: 44100, to: samples.count / 2 - 44100, by: 22050) {
            guard let track = PCM.locate(recordingFrame: start, recording: samples, in: reference.samples, channels: 2) else { continue }
            // Up to three seconds, but not across the join where the source loops the track.
            let length = min(44100 * 3, reference.frameCount - track, samples.count / 2 - start)
            guard length >= 44100 else { continue }
            let heard = samples[(start * 2)..<((start + length) * 2)]
            #expect(heard.elementsEqual(reference.samples[(track * 2)..<((track + length) * 2)]),
                    "\(length) frames from frame \(track) differ: metadata bytes got into the audio?")
            checked = true
            break
        }
        #expect(checked, "no stretch of the track found in what was heard")
    }

    @Test("streamplay --json shows the station's title")
    func commandLineTitle() async throws {
        try Self.setTitle("Json Title")
        let result = try await CommandLineTests.run(["--json", "--output", "null", "--length", "2", try Self.stationURL()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"event\":\"metadata\""))
        #expect(result.stdout.contains("\"title\":\"Json Title\""))
    }
}
