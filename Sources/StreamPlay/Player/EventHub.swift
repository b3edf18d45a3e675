import FoundationEssentials
import Synchronization

/// Fans ``PlayerEvent``s out to every ``Player/events`` stream.
///
/// Yielding to an `AsyncStream` never blocks, so engine threads can report without waiting on
/// a slow listener; each stream buffers what its listener has not read yet.
final class EventHub: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<PlayerEvent>.Continuation]>([:])

    /// A new stream that first yields `initial()`, then every event from now on.
    ///
    /// `initial` is read after the stream is registered, so an event sent meanwhile is seen
    /// either in `initial` or after it (possibly both), never lost.
    func subscribe(initial: () -> PlayerEvent) -> AsyncStream<PlayerEvent> {
        let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withEngineLock { _ = $0.removeValue(forKey: id) }
        }
        continuations.withEngineLock { continuations in
            continuations[id] = continuation
            continuation.yield(initial())
        }
        return stream
    }

    func send(_ event: PlayerEvent) {
        continuations.withEngineLock { continuations in
            for continuation in continuations.values { continuation.yield(event) }
        }
    }

    func finishAll() {
        let all = continuations.withEngineLock { continuations in
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for continuation in all { continuation.finish() }
    }
}
