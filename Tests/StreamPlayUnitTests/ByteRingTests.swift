import Synchronization
import Testing
@_spi(Benchmarks) @testable import StreamPlay

@Suite("ByteRing")
struct ByteRingTests {
    @Test("bytes come out in order across the wrap-around; writes that do not fit are refused whole")
    func wrapAround() {
        let ring = ByteRing(capacity: 65536) {}
        ring.beginGeneration(1)
        var next: UInt8 = 0
        var expected: UInt8 = 0
        let chunk = [UInt8](repeating: 0, count: 40000)
        var buffer = [UInt8](repeating: 0, count: 30000)
        for _ in 0..<20 {
            let data = chunk.indices.map { _ -> UInt8 in defer { next &+= 1 }; return next }
            if !data.withUnsafeBytes({ ring.write($0) }) {
                next &-= UInt8(truncatingIfNeeded: data.count)
            }
            let count = buffer.withUnsafeMutableBytes { ring.read(into: $0, generation: 1) }
            for byte in buffer.prefix(count) {
                #expect(byte == expected)
                expected &+= 1
            }
            #expect(ring.available <= ring.capacity)
        }
    }

    @Test("a new generation hides everything written before it")
    func generations() {
        let ring = ByteRing(capacity: 65536) {}
        ring.beginGeneration(1)
        _ = [UInt8](repeating: 1, count: 1000).withUnsafeBytes { ring.write($0) }
        ring.beginGeneration(2)
        _ = [UInt8](repeating: 2, count: 10).withUnsafeBytes { ring.write($0) }
        var buffer = [UInt8](repeating: 0, count: 2000)
        #expect(buffer.withUnsafeMutableBytes { ring.read(into: $0, generation: 1) } == 0)
        let count = buffer.withUnsafeMutableBytes { ring.read(into: $0, generation: 2) }
        #expect(count == 10)
        #expect(buffer.prefix(count).allSatisfy { $0 == 2 })
        #expect(ring.available == 0)
    }

    @Test("skip discards without copying, within the generation")
    func skip() {
        let ring = ByteRing(capacity: 65536) {}
        ring.beginGeneration(3)
        _ = (0..<100).map { UInt8($0) }.withUnsafeBytes { ring.write($0) }
        #expect(ring.skip(40, generation: 3) == 40)
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(buffer.withUnsafeMutableBytes { ring.read(into: $0, generation: 3) } == 10)
        #expect(buffer.first == 40)
    }
    @Test("a consumer waiting for a generation without reading frees what older ones hold, and wakes the producer")
    func discardOlderGenerations() {
        let ring = ByteRing(capacity: 65536) {}
        let woken = Mutex(0)
        ring.setProducerWaker { woken.withEngineLock { $0 += 1 } }
        ring.beginGeneration(1)
        let old = [UInt8](repeating: 1, count: 32768)
        #expect(old.withUnsafeBytes { ring.write($0) })
        // The producer has not begun generation 2 yet: all of generation 1 goes.
        ring.discardOlderGenerations(than: 2)
        #expect(ring.available == 0)
        // The old request wrote on until the producer took the restart, filling the ring.
        #expect(old.withUnsafeBytes { ring.write($0) })
        #expect(old.withUnsafeBytes { ring.write($0) })
        ring.beginGeneration(2)
        let new = [UInt8](repeating: 2, count: 4096)
        #expect(!new.withUnsafeBytes { ring.write($0) }, "the ring is full of generation 1")
        #expect(!ring.announceProducerWaiting(for: new.count))
        ring.discardOlderGenerations(than: 2)
        #expect(woken.withEngineLock { $0 } == 1, "the waiting producer is woken")
        #expect(new.withUnsafeBytes { ring.write($0) })
        // Bytes of the generation waited for stay.
        ring.discardOlderGenerations(than: 2)
        #expect(ring.available(generation: 2) == new.count)
        var buffer = [UInt8](repeating: 0, count: 8192)
        #expect(buffer.withUnsafeMutableBytes { ring.read(into: $0, generation: 2) } == new.count)
        #expect(buffer.prefix(new.count).allSatisfy { $0 == 2 })
    }
}
