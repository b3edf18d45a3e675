import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// An ID3v2 tag of 5 MB in front of the audio (cover art of a careless tagger): skipped, and the
/// audio after it decodes exactly.
@Suite("Big ID3v2 tags", .needsTestServers)
struct BigTagTests {
    @Test("a 5 MB ID3v2 tag over HTTP")
    func fiveMegabyteTag() async throws {
        let media = try TestEnvironment.media()
        let name = "id3-5mb-\(UUID().uuidString.prefix(8)).mp3"
        let audio = try Data(contentsOf: URL(fileURLWithPath: "\(media)/cbr-44k-stereo-short.mp3"))
        // ID3v2.3 header: "ID3", version 3.0, no flags, size as four 7-bit bytes; one PRIV frame.
        let frameBody = Data("streamplay\0".utf8) + Data((0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) })
        var frame = Data("PRIV".utf8)
        frame += withUnsafeBytes(of: UInt32(frameBody.count).bigEndian) { Data($0) } + Data([0, 0]) + frameBody
        let size = frame.count
        var tag = Data("ID3".utf8) + Data([3, 0, 0])
        tag += Data([UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)])
        try (tag + frame + audio).write(to: URL(fileURLWithPath: "\(media)/\(name)"))
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }

        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        player.play("\(try TestEnvironment.http())/\(name)")
        #expect(try await player.finish(within: 30) == .ended)
        player.stop()
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil)
    }
}
