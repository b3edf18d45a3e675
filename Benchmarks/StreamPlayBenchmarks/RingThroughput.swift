import Foundation
@_spi(Benchmarks) import StreamPlay

/// Pushes bytes through a ``ByteRing`` from a producer thread to the calling thread, the way the
/// input thread feeds the decoder thread; waits spin, so the figure is the ring's own cost.
enum RingThroughput {
    /// - Returns: MiB per second moved end to end.
    static func run(totalBytes: Int, chunk: Int, capacity: Int) -> Double {
        let ring = ByteRing(capacity: capacity, wakeConsumer: {})
        let start = ContinuousClock.now
        let producer = Thread {
            let source = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
            defer { source.deallocate() }
            source.initializeMemory(as: UInt8.self, repeating: 0x5A)
            var sent = 0
            while sent < totalBytes {
                if ring.write(UnsafeRawBufferPointer(source)) {
                    sent += chunk
                } else {
                    sched_yield()
                }
            }
        }
        producer.start()
        let sink = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { sink.deallocate() }
        var received = 0
        while received < totalBytes {
            let count = ring.read(into: sink, generation: ring.generation)
            if count == 0 { sched_yield() }
            received += count
        }
        let seconds = (ContinuousClock.now - start).seconds
        return Double(totalBytes) / 1_048_576 / seconds
    }
}
