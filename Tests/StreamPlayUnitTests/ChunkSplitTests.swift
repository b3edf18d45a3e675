import Testing
@testable import StreamPlay

@Suite("Chunk split (the prebuffer's part and a requested length's end)")
struct ChunkSplitTests {
    @Test("once output started, the whole chunk is the rest")
    func started() {
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: nil, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 400, reachesEnd: false))
    }

    @Test("before output starts, the part that fills the prebuffer comes first, the rest after")
    func prebufferFills() {
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: nil, framesBeforeStart: 30)
                == ChunkSplit(prebuffer: 120, rest: 280, reachesEnd: false))
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: nil, framesBeforeStart: 500)
                == ChunkSplit(prebuffer: 400, rest: 0, reachesEnd: false), "the prebuffer is still short after it")
    }

    @Test("a requested length cuts the chunk at its end, before the prebuffer's split")
    func lengthEnds() {
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: 60, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 240, reachesEnd: true))
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: 100, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 400, reachesEnd: true), "ends exactly with the chunk")
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: 101, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 400, reachesEnd: false))
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: 60, framesBeforeStart: 30)
                == ChunkSplit(prebuffer: 120, rest: 120, reachesEnd: true))
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: -5, framesBeforeStart: 30)
                == ChunkSplit(prebuffer: 0, rest: 0, reachesEnd: true), "past the end already: nothing is written")
        #expect(ChunkSplit(byteCount: 400, bytesPerFrame: 4, framesToEnd: 0, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 0, reachesEnd: true), "at the end: nothing is written")
    }

    @Test("an empty chunk writes nothing; before output starts it still counts, as no frames, towards the prebuffer")
    func emptyChunk() {
        #expect(ChunkSplit(byteCount: 0, bytesPerFrame: 4, framesToEnd: nil, framesBeforeStart: 30)
                == ChunkSplit(prebuffer: 0, rest: 0, reachesEnd: false))
        #expect(ChunkSplit(byteCount: 0, bytesPerFrame: 4, framesToEnd: 10, framesBeforeStart: nil)
                == ChunkSplit(prebuffer: nil, rest: 0, reachesEnd: false))
    }
}
