import Foundation
import Testing
@testable import StreamPlay

/// The decoder's input side on its own: a file read into a ring by the real file input, and
/// libmpg123, with no session, sink or player.
@Suite("Decoder feed (the decoder's input side)")
struct DecoderFeedTests {
    /// A feed over the file at `path`; `stop()` ends its input's thread.
    final class Fixture {
        let wake = ThreadSignal()
        let ring: ByteRing
        let input: FileInputSource
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MPG123Decoder.feedSize, alignment: 16)
        let pcm = UnsafeMutableRawBufferPointer.allocate(byteCount: FFmpegDecoder.bufferSize, alignment: 16)
        let feed: DecoderFeed
        var firstBytesArrivals = 0

        init(path: String, ringCapacity: Int = 256 * 1024) throws {
            let wake = self.wake
            ring = ByteRing(capacity: ringCapacity) { wake.signal() }
            input = FileInputSource(path: path, ring: ring, control: InputControl { wake.signal() })
            var arrivals: () -> Void = {}
            feed = DecoderFeed(ring: ring, input: input, decoder: DecoderChoice(try MPG123Decoder()), buffer: buffer,
                               url: path, configuration: PlayerConfiguration(output: .null),
                               timeline: PlaybackTimeline(), firstBytesArrived: { arrivals() })
            arrivals = { [unowned self] in firstBytesArrivals += 1 }
            input.start(at: 0, generation: feed.generation)
        }

        deinit {
            input.stop()
            buffer.deallocate()
            pcm.deallocate()
        }

        /// Decodes, feeding as the decoder asks, until `done` says so, the input ends, or 5 s pass.
        func decode(until done: (DecodeStep) -> Bool) throws(PlayerError) -> DecodeStep? {
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let step = try feed.decode(into: pcm)
                if done(step) { return step }
                if step == .needMore, try !feed.feed() {
                    if feed.outcome != nil, feed.buffered == 0 { return nil }
                    wake.wait(timeout: 0.01)
                }
            }
            return nil
        }
    }

    static var sweep: String {
        Bundle.module.url(forResource: "sweep", withExtension: "mp3", subdirectory: "Media")!.path
    }

    @Test("the first bytes are told once; the ID3v2 tag in front is passed, its names held; MPEG audio decodes")
    func taggedMP3() throws {
        let fixture = try Fixture(path: Self.sweep)
        let step = try fixture.decode { $0 == .formatChanged }
        #expect(step == .formatChanged)
        #expect(fixture.firstBytesArrivals == 1)
        #expect(fixture.feed.sniffed == nil, "the sniffer decided")
        #expect(fixture.feed.heldTags?.title != nil, "the tag's names wait for the first audio")
        #expect(fixture.feed.decoder.format?.sampleRate == 22_050)
        #expect(fixture.feed.bytesFed > 0 && fixture.feed.inputPosition >= fixture.feed.bytesFed)
    }

    @Test("bytes that are not audio are refused by name, before any reaches the decoder")
    func notAudio() throws {
        let path = NSTemporaryDirectory() + "sp-feed-\(UUID().uuidString).mp3"
        try Data("<!DOCTYPE html><html><body>not found</body></html>\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fixture = try Fixture(path: path)
        let error = #expect(throws: PlayerError.self) { _ = try fixture.decode { _ in false } }
        #expect(error?.code == .notAudio, "\(String(describing: error))")
        #expect(fixture.feed.bytesFed == 0)
    }

    @Test("a byte seek within the ring skips to it; one behind, on an input that cannot restart at a byte, reads again from the start")
    func reposition() throws {
        let fixture = try Fixture(path: Self.sweep)
        _ = try fixture.decode { $0 == .formatChanged }
        let generation = fixture.feed.generation
        let position = fixture.feed.inputPosition
        fixture.feed.reposition(to: position, supportsRanges: false)
        #expect(fixture.feed.skipTo == nil, "already there: nothing to skip")
        // The file (80 KB) fits the ring whole: bytes wait past the first frame.
        let deadline = ContinuousClock.now + .seconds(5)
        while fixture.feed.buffered == 0, ContinuousClock.now < deadline { fixture.wake.wait(timeout: 0.01) }
        try #require(fixture.feed.buffered > 0)
        fixture.feed.reposition(to: position + 1, supportsRanges: false)
        #expect(fixture.feed.skipTo == position + 1)
        #expect(fixture.feed.generation == generation, "no new request")
        fixture.feed.reposition(to: 100, supportsRanges: false)
        #expect(fixture.feed.generation == generation + 1, "a new request")
        #expect(fixture.feed.inputPosition == 0 && fixture.feed.skipTo == 100)
        fixture.feed.reposition(to: 300_000, supportsRanges: true)
        #expect(fixture.feed.generation == generation + 2)
        #expect(fixture.feed.inputPosition == 300_000 && fixture.feed.skipTo == nil, "a request from the byte")
    }
}
