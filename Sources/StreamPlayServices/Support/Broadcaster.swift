import StreamPlay
import Synchronization

/// Hands each value to every current listener's AsyncStream; a stream ends when its reader
/// stops or the broadcaster goes away.
final class Broadcaster<Value: Sendable>: Sendable {
    private let listeners = Mutex<(next: Int, all: [Int: AsyncStream<Value>.Continuation])>((0, [:]))

    /// A new stream of the values sent from now on (the newest 256 kept for a slow reader).
    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(256))
        let id = listeners.withEngineLock { state in
            state.next += 1
            state.all[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withEngineLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func send(_ value: Value) {
        for continuation in listeners.withEngineLock({ Array($0.all.values) }) { continuation.yield(value) }
    }

    deinit {
        for continuation in listeners.withEngineLock({ Array($0.all.values) }) { continuation.finish() }
    }
}
