import Synchronization

/// The package's one fan-out: hands each value to every current listener's `AsyncStream`.
///
/// Yielding to an `AsyncStream` never blocks, so engine threads can report without waiting on
/// a slow listener; each stream buffers the newest values its listener has not read yet. A
/// stream ends when its reader stops, at ``finishAll()``, or when the broadcaster goes away.
package final class Broadcaster<Value: Sendable>: Sendable {
    private let listeners = Mutex<(next: Int, all: [Int: AsyncStream<Value>.Continuation])>((0, [:]))
    private let buffered: Int

    /// - Parameter buffered: values kept for a listener that reads slowly; older ones are dropped.
    package init(buffered: Int) {
        self.buffered = buffered
    }

    /// A new stream of the values sent from now on, after `initial()` when given.
    ///
    /// `initial` is read after the stream is registered, so a value sent meanwhile is seen
    /// either in `initial` or after it (possibly both), never lost.
    package func stream(initial: (() -> Value)? = nil) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(buffered))
        let id = listeners.withEngineLock { state in
            state.next += 1
            state.all[state.next] = continuation
            if let initial { continuation.yield(initial()) }
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withEngineLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `value` to every current stream.
    package func send(_ value: Value) {
        listeners.withEngineLock { state in
            for continuation in state.all.values { continuation.yield(value) }
        }
    }

    /// Ends every stream.
    package func finishAll() {
        let all = listeners.withEngineLock { state in
            defer { state.all.removeAll() }
            return Array(state.all.values)
        }
        for continuation in all { continuation.finish() }
    }

    deinit {
        finishAll()
    }
}
