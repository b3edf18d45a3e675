import Synchronization

/// A bounded single-producer/single-consumer byte ring between an input thread and the decoder.
///
/// The producer (an input source) and the consumer (the decoder thread) never take a lock: each
/// owns one counter and only reads the other's. Memory is allocated once, so it never grows
/// with the length of a track.
///
/// The producer is one thread at a time, not always the same one: an HTTP input's transfer
/// writes from the `CurlLoop`'s thread, and the input's own thread begins generations and
/// waits for room between transfers. Their calls never overlap: the input thread touches the
/// producer side only while no transfer of its own is on the loop (it waits for the transfer's
/// end, which the loop publishes under a lock after its last write, before it begins a
/// generation; it adds the next transfer through the loop's locked inbox after). While a
/// transfer is paused, the input thread calls `announceProducerWaiting(for:)` and reads
/// ``freeSpace``, which store only `producerNeeds` and read the counters.
///
/// A restart of the input (a seek by Range request) must not let bytes of the old request reach
/// the decoder. The producer marks where the new request's bytes begin with `beginGeneration(_:)`;
/// the consumer skips everything before that mark, and skips all bytes of older generations.
public final class ByteRing: @unchecked Sendable {
    /// The number of bytes the ring holds at most.
    public let capacity: Int

    private let storage: UnsafeMutableRawPointer
    /// Total bytes ever written (owned by the producer).
    private let written = Atomic<Int>(0)
    /// Total bytes ever read or skipped (owned by the consumer).
    private let consumed = Atomic<Int>(0)
    /// Value of `written` at which the current generation's bytes start.
    private let generationStart = Atomic<Int>(0)
    private let currentGeneration = Atomic<Int>(0)
    /// Set by a side that is about to sleep, so the other side knows to wake it.
    private let consumerWaiting = Atomic<Bool>(false)
    /// Free bytes the sleeping producer needs before it is worth waking (0: not sleeping).
    private let producerNeeds = Atomic<Int>(0)
    private let wakeConsumer: @Sendable () -> Void
    private let wakeProducer = Mutex<Waker?>(nil)

    /// The producer's wake-up, boxed: a closure passed out of the lock generically would be
    /// re-abstracted into a new allocation on every wake-up, on the decoder's hot path.
    private final class Waker: Sendable {
        let wake: @Sendable () -> Void
        init(_ wake: @escaping @Sendable () -> Void) { self.wake = wake }
    }

    /// Creates a ring of `capacity` bytes.
    /// - Parameters:
    ///   - capacity: the bound on buffered input; at least 64 KiB so a whole network read fits.
    ///   - wakeConsumer: called (rarely) when bytes arrive while the consumer sleeps.
    public init(capacity: Int, wakeConsumer: @escaping @Sendable () -> Void) {
        self.capacity = max(capacity, 64 * 1024)
        self.storage = .allocate(byteCount: self.capacity, alignment: 16)
        self.wakeConsumer = wakeConsumer
    }

    deinit {
        storage.deallocate()
    }

    /// Installs the function that wakes the producer when space frees up.
    func setProducerWaker(_ waker: (@Sendable () -> Void)?) {
        let boxed = waker.map(Waker.init)
        wakeProducer.withEngineLock { $0 = boxed }
    }

    /// Empties the ring and forgets its generations, for a new producer.
    /// Only while no producer runs: the old one has stopped and the new one has not started.
    func reset() {
        let head = written.load(ordering: .acquiring)
        generationStart.store(head, ordering: .releasing)
        currentGeneration.store(0, ordering: .releasing)
        consumed.store(head, ordering: .sequentiallyConsistent)
    }

    // MARK: Producer side

    /// Free space, as the producer sees it.
    public var freeSpace: Int {
        capacity - (written.load(ordering: .relaxed) - consumed.load(ordering: .acquiring))
    }

    /// Starts a new generation: every byte written before this call is discarded by the consumer.
    func beginGeneration(_ generation: Int) {
        generationStart.store(written.load(ordering: .relaxed), ordering: .releasing)
        // Sequentially consistent, paired with `consumerWaiting`, like the byte counter.
        currentGeneration.store(generation, ordering: .sequentiallyConsistent)
        signalConsumerIfWaiting()
    }

    /// Copies all of `bytes` in, or nothing when they do not fit.
    /// - Returns: `false` when the ring lacks space; the producer should wait (``announceProducerWaiting(for:)``).
    @_spi(Benchmarks) public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0 else { return true }
        let head = written.load(ordering: .relaxed)
        let tail = consumed.load(ordering: .acquiring)
        guard capacity - (head - tail) >= count, let base = bytes.baseAddress else { return false }
        let start = head % capacity
        let firstPart = min(count, capacity - start)
        (storage + start).copyMemory(from: base, byteCount: firstPart)
        if firstPart < count {
            storage.copyMemory(from: base + firstPart, byteCount: count - firstPart)
        }
        // Sequentially consistent, paired with `consumerWaiting`: a sleeping consumer is never missed.
        written.store(head + count, ordering: .sequentiallyConsistent)
        signalConsumerIfWaiting()
        return true
    }

    /// Tells the consumer that the producer waits for `bytes` of space.
    /// - Returns: `true` if that space is already there (no need to sleep).
    func announceProducerWaiting(for bytes: Int) -> Bool {
        producerNeeds.store(max(bytes, 1), ordering: .sequentiallyConsistent)
        let used = written.load(ordering: .relaxed) - consumed.load(ordering: .sequentiallyConsistent)
        if capacity - used >= bytes {
            producerNeeds.store(0, ordering: .relaxed)
            return true
        }
        return false
    }

    private func signalConsumerIfWaiting() {
        if consumerWaiting.load(ordering: .sequentiallyConsistent) {
            consumerWaiting.store(false, ordering: .relaxed)
            wakeConsumer()
        }
    }

    // MARK: Consumer side

    /// The generation whose bytes are in the ring now.
    @_spi(Benchmarks) public var generation: Int { currentGeneration.load(ordering: .acquiring) }

    /// Bytes readable by the consumer (of any generation).
    public var available: Int {
        written.load(ordering: .acquiring) - consumed.load(ordering: .relaxed)
    }

    /// Reads up to `buffer.count` bytes of `generation`, discarding any of earlier generations.
    /// - Returns: the number of bytes copied; 0 when none of that generation are there yet.
    @_spi(Benchmarks) public func read(into buffer: UnsafeMutableRawBufferPointer, generation: Int) -> Int {
        // The counter before the generation: bytes counted here that belong to a newer
        // generation imply (release/acquire) that the newer generation is visible below.
        let head = written.load(ordering: .acquiring)
        let current = currentGeneration.load(ordering: .acquiring)
        var tail = consumed.load(ordering: .relaxed)
        guard current == generation else {
            // The producer has not begun the wanted generation: everything there belongs to an
            // older request, so make room for the new one.
            if current < generation, head != tail { release(to: head) }
            return 0
        }
        let start = generationStart.load(ordering: .acquiring)
        if tail < start { tail = start }
        let count = min(buffer.count, head - tail)
        guard count > 0, let destination = buffer.baseAddress else {
            if tail != consumed.load(ordering: .relaxed) { release(to: tail) }
            return 0
        }
        let offset = tail % capacity
        let firstPart = min(count, capacity - offset)
        destination.copyMemory(from: storage + offset, byteCount: firstPart)
        if firstPart < count {
            (destination + firstPart).copyMemory(from: storage, byteCount: count - firstPart)
        }
        release(to: tail + count)
        return count
    }

    /// Discards up to `count` readable bytes of `generation` without copying them.
    func skip(_ count: Int, generation: Int) -> Int {
        guard currentGeneration.load(ordering: .acquiring) == generation else { return 0 }
        let head = written.load(ordering: .acquiring)
        let tail = max(consumed.load(ordering: .relaxed), generationStart.load(ordering: .acquiring))
        let skipped = min(count, head - tail)
        release(to: tail + max(skipped, 0))
        return max(skipped, 0)
    }

    /// Frees the space that bytes of generations before `generation` hold, without reading:
    /// for a consumer that waits for `generation` to fill without reading meanwhile (a
    /// rebuffer's refill).
    ///
    /// ``read(into:generation:)`` drops such bytes as it goes, but a refill reads nothing until
    /// enough is there. Old bytes the previous request wrote until the producer took the restart
    /// can fill the ring; the producer then waits for space, and the refill for bytes that never
    /// come (a seek by bisection, which restarts the input again and again, stalled so).
    /// Called again while the wait lasts: bytes the old request writes after a first call, before
    /// the producer begins `generation`, are freed by the next.
    func discardOlderGenerations(than generation: Int) {
        // As in `read`: the counter before the generation.
        let head = written.load(ordering: .acquiring)
        let current = currentGeneration.load(ordering: .acquiring)
        let tail = consumed.load(ordering: .relaxed)
        if current < generation {
            if head != tail { release(to: head) }
        } else if current == generation {
            let start = generationStart.load(ordering: .acquiring)
            if tail < start { release(to: start) }
        }
    }

    /// Bytes of `generation` that are readable now.
    func available(generation: Int) -> Int {
        guard currentGeneration.load(ordering: .acquiring) == generation else { return 0 }
        let head = written.load(ordering: .acquiring)
        let tail = max(consumed.load(ordering: .relaxed), generationStart.load(ordering: .acquiring))
        return head - tail
    }

    /// Tells the producer that the consumer is about to sleep until bytes arrive.
    /// - Returns: `true` if bytes of `generation` arrived meanwhile (no need to sleep). While the
    ///   producer has not begun `generation` yet, the consumer sleeps: `beginGeneration(_:)` wakes it.
    func announceConsumerWaiting(generation: Int) -> Bool {
        consumerWaiting.store(true, ordering: .sequentiallyConsistent)
        _ = written.load(ordering: .sequentiallyConsistent)
        if available(generation: generation) > 0 {
            consumerWaiting.store(false, ordering: .relaxed)
            return true
        }
        return false
    }

    private func release(to newTail: Int) {
        consumed.store(newTail, ordering: .sequentiallyConsistent)
        let needed = producerNeeds.load(ordering: .sequentiallyConsistent)
        if needed > 0, capacity - (written.load(ordering: .acquiring) - newTail) >= needed {
            producerNeeds.store(0, ordering: .relaxed)
            wakeProducer.withEngineLock { $0 }?.wake()
        }
    }
}
