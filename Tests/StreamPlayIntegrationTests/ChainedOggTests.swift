import Foundation
import StreamPlayTesting
import Testing
@testable import StreamPlay

/// A chained Ogg stream (two logical streams one after the other, each with its own comment
/// header, as an Ogg radio station sends a new title) plays as the two parts decoded in turn,
/// and each part's names arrive as a metadata event when its audio starts.
@Suite("Chained Ogg streams", .serialized, .needsTestServers)
struct ChainedOggTests {
    static let files = ["formats/chained.ogg", "formats/chained.opus"]

    static func names(_ title: String) -> StreamMetadata {
        StreamMetadata(title: title, artist: "Chain Artist", album: "Chain Album")
    }

    static func metadata(_ events: [PlayerEvent]) -> [StreamMetadata] {
        events.compactMap { if case .metadata(let names) = $0 { names } else { nil } }
    }

    /// The parts of `file`: its first and second logical streams, each decoded on its own.
    static func parts(of file: String) throws -> (one: ReferenceAudio, two: ReferenceAudio) {
        let ext = (file as NSString).pathExtension
        return (try ReferenceAudio("formats/chain-one.\(ext)"), try ReferenceAudio("formats/chain-two.\(ext)"))
    }

    /// What was played is both parts, one after the other: as many samples (within what a
    /// lossy codec's overlap at the join adds or takes), and each part's audio close to its own
    /// decode away from the join.
    static func expectBothParts(_ samples: [Int16], of file: String) throws {
        let (one, two) = try parts(of: file)
        let channels = one.channels
        let expected = one.samples.count + two.samples.count
        let joinMargin = 2048 * channels
        #expect(abs(samples.count - expected) <= joinMargin, "\(file): \(samples.count) samples, the parts \(expected)")
        guard samples.count > expected - joinMargin, one.samples.count > 2 * joinMargin, two.samples.count > 2 * joinMargin else { return }
        let head = one.samples.count - joinMargin
        let first = PCM.signalToNoise(samples[..<head], one.samples[..<head])
        #expect(first > 30, "\(file): the first part is \(first) dB from its own decode")
        let tail = two.samples.count - joinMargin
        let second = PCM.signalToNoise(samples[(samples.count - tail)...], two.samples[(two.samples.count - tail)...])
        #expect(second > 30, "\(file): the second part is \(second) dB from its own decode")
    }

    @Test("from a file and over HTTP: both parts played, and two metadata events with each part's names",
          arguments: files, ["media", "http"])
    func bothParts(file: String, from origin: String) async throws {
        let base = origin == "http" ? try TestEnvironment.http() : try TestEnvironment.media()
        let played = try await playToWAV("\(base)/\(file)")
        #expect(played.state == .ended)
        try Self.expectBothParts(played.samples, of: file)
        #expect(Self.metadata(played.events) == [Self.names("Chain One"), Self.names("Chain Two")],
                "\(file) from \(origin): \(Self.metadata(played.events))")
    }

    @Test("the second part's names arrive when its audio starts, not when its pages are read ahead",
          arguments: files)
    func namesWhenHeard(file: String) async throws {
        let (one, _) = try Self.parts(of: file)
        let sink = RecordingSink(pacedAhead: 0.2)
        // The whole file fits in the input buffer: the second part's pages are read long before
        // it plays.
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/\(file)")
        var framesAtEvent: Int?
        let deadline = ContinuousClock.now + .seconds(20)
        while framesAtEvent == nil, ContinuousClock.now < deadline {
            if Self.metadata(events.all).contains(where: { $0.title == "Chain Two" }) {
                framesAtEvent = sink.samples.count / one.channels
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(player.metadata?.title == "Chain Two")
        player.stop()
        let frames = try #require(framesAtEvent, "\(file): no metadata event for the second part")
        let seconds = Double(frames - one.frameCount) / Double(one.sampleRate)
        // The sink takes audio 0.2 s ahead of real time; the event comes with the part's first audio.
        #expect(seconds > -0.1 && seconds < 0.5,
                "\(file): the second part's names came \(seconds) s from its start in the audio written")
    }
}
