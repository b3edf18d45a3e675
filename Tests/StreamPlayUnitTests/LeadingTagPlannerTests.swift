import Testing
@testable import StreamPlay

@Suite("Leading ID3v2 tag: the way past it")
struct LeadingTagPlannerTests {
    /// A tag starting at byte 0 with `held` bytes of it held, the ring holding `buffered` more.
    static func plan(size: Int, held: Int, buffered: Int = 0, ranges: Bool = true, ended: Bool = false)
        -> LeadingTagPlanner.Plan {
        LeadingTagPlanner.plan(tagSize: size, tagStart: 0, held: held, inputEnded: ended, inputPosition: held,
                               buffered: buffered, supportsRanges: ranges)
    }

    @Test("a tag up to the largest picture kept is waited for whole; bigger ones, or at the input's end, are not")
    func holdWhole() {
        #expect(Self.plan(size: 300_000, held: 4096) == .holdWhole)
        #expect(Self.plan(size: Artwork.maximumSize, held: 4096) == .holdWhole)
        #expect(Self.plan(size: Artwork.maximumSize + 1, held: 4096) != .holdWhole)
        #expect(Self.plan(size: 300_000, held: 4096, ended: true) != .holdWhole)
    }

    @Test("a tag that ends within the bytes held: what follows it is sniffed from there")
    func withinHeld() {
        #expect(Self.plan(size: 1000, held: 4096) == .sniffHeld(from: 1000))
        #expect(Self.plan(size: 4096, held: 4096) == .sniffHeld(from: 4096))
    }

    @Test("a tag too big to hold: a Range request from its end, unless the ring has it or the input cannot seek")
    func beyondHeld() {
        let big = 200 * 1024 * 1024
        #expect(Self.plan(size: big, held: 4096, buffered: 60_000) == .restartInput(at: big))
        #expect(Self.plan(size: big, held: 4096, buffered: 60_000, ranges: false) == .skip(to: big))
        // The tag's end is in the ring already: reading on is cheaper than a new request.
        let ringHolds = Artwork.maximumSize + 10_000
        #expect(Self.plan(size: Artwork.maximumSize + 1, held: 4096, buffered: ringHolds) == .skip(to: Artwork.maximumSize + 1))
        // From a tag that starts later in the resource (after an earlier tag), the end is its start plus its size.
        #expect(LeadingTagPlanner.plan(tagSize: big, tagStart: 2000, held: 4096, inputEnded: false, inputPosition: 6096,
                                       buffered: 0, supportsRanges: true) == .restartInput(at: big + 2000))
    }
}
