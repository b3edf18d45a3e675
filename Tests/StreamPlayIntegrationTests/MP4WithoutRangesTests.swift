import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// An MP4 whose index follows its media, from a server that refuses Range requests: read to the
/// index, then again from the start by a second plain request, never held whole in memory.
@Suite("MP4 index at the end without Range", .serialized, .needsTestServers)
struct MP4WithoutRangesTests {
    @Test("nginx with max_ranges 0: two plain requests, a ring far smaller than the file, and ffmpeg's decode exactly")
    func indexAtTheEndWithoutRanges() async throws {
        let file = "formats/long.m4a"
        let reference = try ReferenceAudio(file)
        let size = try FileManager.default.attributesOfItem(atPath: "\(try TestEnvironment.media())/\(file)")[.size] as? Int ?? 0
        let uri = "/norange/\(file)?\(UUID().uuidString.prefix(8))"
        let ring = 64 * 1024
        #expect(size > 4 * ring, "the file must outgrow the ring: \(size) bytes")
        let played = try await playToWAV("\(try TestEnvironment.http())\(uri)") { $0.inputBufferCapacity = ring }
        #expect(played.state == .ended, "\(played.state)")
        #expect(played.samples.count == reference.samples.count, "\(played.samples.count) samples, the reference \(reference.samples.count)")
        #expect(SampleDifference.between(played.samples, reference.samples) == nil, "the audio differs from ffmpeg's decode")
        let requests = try accessLogEntries(for: uri)
        // Once through to the index, once for the media: no more, and none of them a Range.
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.allSatisfy { $0.status == 200 }, "\(requests)")
    }
}
