import Testing
@testable import StreamPlay

@Suite("Leading ID3v2 tag: the way past it")
struct LeadingTagPlannerTests {
    @Test("a tag up to the largest picture kept is waited for whole; a bigger one, or one the input ended in, is not")
    func waitsForWholeTag() {
        #expect(LeadingTagPlanner.waitsForWholeTag(tagSize: 300_000, held: 4096, inputEnded: false))
        #expect(LeadingTagPlanner.waitsForWholeTag(tagSize: Artwork.maximumSize, held: 4096, inputEnded: false))
        #expect(!LeadingTagPlanner.waitsForWholeTag(tagSize: Artwork.maximumSize + 1, held: 4096, inputEnded: false))
        #expect(!LeadingTagPlanner.waitsForWholeTag(tagSize: 300_000, held: 4096, inputEnded: true))
        // Held whole already: nothing to wait for.
        #expect(!LeadingTagPlanner.waitsForWholeTag(tagSize: 4096, held: 4096, inputEnded: false))
    }

    /// The way past a tag starting at byte 0 with `held` bytes of it held, the ring holding
    /// `buffered` more.
    static func wayPast(size: Int, held: Int, buffered: Int = 0, ranges: Bool = true) -> LeadingTagPlanner.WayPast {
        LeadingTagPlanner.wayPast(tagSize: size, tagStart: 0, held: held, inputPosition: held, buffered: buffered,
                                  supportsRanges: ranges)
    }

    @Test("a tag that ends within the bytes held: what follows it is sniffed from there")
    func withinHeld() {
        #expect(Self.wayPast(size: 1000, held: 4096) == .sniffHeld(from: 1000))
        #expect(Self.wayPast(size: 4096, held: 4096) == .sniffHeld(from: 4096))
    }

    @Test("a tag beyond the bytes held: a Range request from its end, unless the ring has it or the input cannot seek")
    func beyondHeld() {
        let big = 200 * 1024 * 1024
        #expect(Self.wayPast(size: big, held: 4096, buffered: 60_000) == .restartInput(at: big))
        #expect(Self.wayPast(size: big, held: 4096, buffered: 60_000, ranges: false) == .skip(to: big))
        // The tag's end is in the ring, to the byte or with more after it: reading on is
        // cheaper than a new request.
        #expect(Self.wayPast(size: 100_000, held: 4096, buffered: 100_000 - 4096) == .skip(to: 100_000))
        #expect(Self.wayPast(size: 100_000, held: 4096, buffered: 100_000 - 4097) == .restartInput(at: 100_000))
        // A tag that starts later in the resource (after an earlier tag) ends at its start plus its size.
        #expect(LeadingTagPlanner.wayPast(tagSize: big, tagStart: 2000, held: 4096, inputPosition: 6096, buffered: 0,
                                          supportsRanges: true) == .restartInput(at: big + 2000))
    }
}
