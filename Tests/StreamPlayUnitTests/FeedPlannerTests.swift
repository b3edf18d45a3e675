import Testing
@testable import StreamPlay

@Suite("Feeding the decoder: skips, and reads that stop at a new stream")
struct FeedPlannerTests {
    /// The planner's step for the input at `position`, with a buffer of `buffer` bytes.
    static func next(at position: Int, skipTo: Int? = nil, boundary: Int? = nil, passed: Int? = nil,
                     buffer: Int = 4096) -> FeedPlanner.Step {
        FeedPlanner.next(inputPosition: position, skipTo: skipTo, discontinuity: boundary, passedDiscontinuity: passed,
                         bufferSize: buffer)
    }

    @Test("with no boundary ahead, a read takes a whole buffer")
    func plainRead() {
        #expect(Self.next(at: 0) == .read(limit: 4096, restartingDecoderAt: nil))
        #expect(Self.next(at: 123_456, buffer: 100) == .read(limit: 100, restartingDecoderAt: nil))
    }

    @Test("a skip comes first: the bytes up to its end are dropped, boundary or not")
    func skipFirst() {
        #expect(Self.next(at: 10, skipTo: 5000) == .skip(count: 4990))
        #expect(Self.next(at: 10, skipTo: 5000, boundary: 10) == .skip(count: 4990))
        // Already there: nothing left to drop.
        #expect(Self.next(at: 5000, skipTo: 5000) == .skip(count: 0))
    }

    @Test("a read stops short of the next stream's first byte")
    func stopsAtBoundary() {
        #expect(Self.next(at: 1000, boundary: 1001) == .read(limit: 1, restartingDecoderAt: nil))
        #expect(Self.next(at: 1000, boundary: 3000) == .read(limit: 2000, restartingDecoderAt: nil))
        // Farther than a buffer: a whole buffer.
        #expect(Self.next(at: 1000, boundary: 5096) == .read(limit: 4096, restartingDecoderAt: nil))
        #expect(Self.next(at: 1000, boundary: 9000) == .read(limit: 4096, restartingDecoderAt: nil))
        // A boundary behind the input (passed already) limits nothing.
        #expect(Self.next(at: 3000, boundary: 2000) == .read(limit: 4096, restartingDecoderAt: nil))
    }

    @Test("at the boundary the decoder starts afresh once, then reads on")
    func restartsOnce() {
        #expect(Self.next(at: 3000, boundary: 3000) == .read(limit: 4096, restartingDecoderAt: 3000))
        #expect(Self.next(at: 3000, boundary: 3000, passed: 3000) == .read(limit: 4096, restartingDecoderAt: nil))
        // An earlier boundary passed does not count for this one.
        #expect(Self.next(at: 3000, boundary: 3000, passed: 1000) == .read(limit: 4096, restartingDecoderAt: 3000))
    }
}
