import Foundation
import StreamPlayTesting
import Testing
@testable import StreamPlay

/// The whole player (queue, sessions, file input, sniffer, mpg123, output gate) on files made
/// here, so that a plain `swift test` checks the wiring with no server and no generated media.
@Suite("Player on local files, no servers")
struct LocalPlayerTests {
    /// An MPEG-1 Layer III stream at 128 kbit/s, 44.1 kHz joint stereo, of `frames` silent
    /// frames: the side information is all zeros, so every granule decodes to silence.
    static func silentMP3(frames: Int) -> [UInt8] {
        let frame = [0xFF, 0xFB, 0x90, 0x40] + [UInt8](repeating: 0, count: 413)
        return (0..<frames).flatMap { _ in frame }
    }

    static func file(_ name: String, frames: Int) throws -> MediaLocation {
        let path = TestEnvironment.temporaryPath(name)
        try Data(silentMP3(frames: frames)).write(to: URL(fileURLWithPath: path))
        return .file(path)
    }

    @Test("a queue of two files plays both, joined, with one item event each and one end")
    func queue() async throws {
        let sink = RecordingSink()
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        let first = try Self.file("first.mp3", frames: 40)
        let second = try Self.file("second.mp3", frames: 25)
        player.play([first, second])
        #expect(try await player.finish(within: 20) == .ended)
        let samples = sink.parts.flatMap(\.samples)
        #expect(sink.parts.map(\.format) == [AudioFormat(sampleRate: 44100, channels: 2)])
        // mpg123 decodes every frame it was given: 1152 samples per channel each.
        #expect(samples.count == (40 + 25) * 1152 * 2, "\(samples.count) samples")
        #expect(samples.allSatisfy { $0 == 0 }, "silence in, silence out")
        try await log.catchUp(until: .ended)
        let items = log.all.compactMap { if case .currentItemChanged(let index, _) = $0 { index } else { nil } }
        #expect(items == [0, 1])
        #expect(log.states.dropFirst().filter(\.isFinal) == [.ended])
        player.stop()
        #expect(engineThreadNames().isEmpty)
    }

    @Test("a file that only looks like FLAC fails by name, and the queue goes on with the next")
    func skipsForeignFormat() async throws {
        let sink = RecordingSink()
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        let flacPath = TestEnvironment.temporaryPath("not-really.mp3")
        try Data(Array("fLaC".utf8) + [UInt8](repeating: 0, count: 4000)).write(to: URL(fileURLWithPath: flacPath))
        player.play([.file(flacPath), try Self.file("after.mp3", frames: 10)])
        #expect(try await player.finish(within: 20) == .ended)
        try await log.catchUp(until: .ended)
        let failures = log.all.compactMap { if case .itemFailed(_, let error) = $0 { error } else { nil } }
        #expect(failures.map(\.code) == [.notAudio])
        #expect(failures.first?.description.contains("FLAC") == true, "\(failures)")
        #expect(sink.parts.flatMap(\.samples).count == 10 * 1152 * 2)
        player.stop()
    }

    @Test("next() during a play moves on; stop() ends with the threads gone")
    func nextAndStop() async throws {
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        player.play([try Self.file("long.mp3", frames: 400), try Self.file("next.mp3", frames: 400)])
        try await player.wait(for: "playing", within: 10) { $0.state == .playing }
        #expect(player.next())
        try await player.wait(for: "the second item", within: 10) { $0.currentIndex == 1 && $0.state == .playing }
        #expect(!player.next(), "no third item")
        player.stop()
        #expect(player.state == .idle)
        #expect(engineThreadNames().isEmpty)
    }
}
