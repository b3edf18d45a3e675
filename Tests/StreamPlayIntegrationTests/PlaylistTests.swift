import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

@Suite("Playlists (.m3u, .pls)", .needsTestServers)
struct PlaylistTests {
    @Test func m3u() {
        let text = """
            #EXTM3U
            #EXTINF:-1,Station
            http://radio.example/live.mp3

            relative/track.mp3\r
            /absolute.mp3
            javascript:alert(1)
            """
        #expect(PlaylistParser.entries(of: text, kind: .m3u, base: "https://host.example:8443/lists/radio.m3u?x=1") == [
            "http://radio.example/live.mp3", "https://host.example:8443/lists/relative/track.mp3",
            "https://host.example:8443/absolute.mp3",
        ])
        #expect(PlaylistParser.entries(of: "a.mp3", kind: .m3u, base: "/music/list.m3u") == ["/music/a.mp3"])
    }

    @Test func pls() {
        let text = """
            [playlist]
            NumberOfEntries=2
            File2=http://b.example/stream
            Title2=B
            File1=http://a.example/stream
            Title1=A
            Version=2
            """
        #expect(PlaylistParser.entries(of: text, kind: .pls, base: "http://x.example/r.pls") == [
            "http://a.example/stream", "http://b.example/stream",
        ])
        #expect(PlaylistParser.kind(of: "http://x/y.PLS?token=1") == .pls)
        #expect(PlaylistParser.kind(of: "/x/y.mp3") == nil)
    }

    @Test("an .m3u over HTTP plays its first entry that works, sample for sample")
    func remoteM3U() async throws {
        let media = try TestEnvironment.media()
        let name = "list-\(UUID().uuidString.prefix(8)).m3u"
        try "#EXTM3U\n\(try TestEnvironment.http())/status/404\ncbr-44k-mono.mp3\n".write(toFile: "\(media)/\(name)", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        player.play("\(try TestEnvironment.http())/\(name)")
        #expect(try await player.finish(within: 20) == .ended)
        player.stop()
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("cbr-44k-mono.mp3")).samples) == nil)
    }

    @Test("a local .pls naming an HTTP stream plays it")
    func localPLS() async throws {
        let list = TestEnvironment.temporaryPath("radio.pls")
        try "[playlist]\nFile1=\(try TestEnvironment.http())/cbr-44k-mono.mp3\nNumberOfEntries=1\n".write(toFile: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: list) }
        let player = Player(configuration: PlayerConfiguration(output: .null))
        player.play(list)
        #expect(try await player.finish(within: 20) == .ended)
        player.stop()
    }

    @Test("a playlist with nothing playable is a typed error")
    func emptyPlaylist() async throws {
        let list = TestEnvironment.temporaryPath("empty.m3u")
        try "#EXTM3U\n# nothing\n".write(toFile: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: list) }
        let player = Player(configuration: PlayerConfiguration(output: .null))
        player.play(list)
        guard case .failed(let error) = try await player.finish(within: 10), error.code == .notAudio else {
            Issue.record("expected notAudio, got \(player.state)")
            return
        }
        player.stop()
    }
}
