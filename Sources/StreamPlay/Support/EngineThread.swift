import CStreamPlayShim
#if canImport(Glibc)
import Glibc
#endif

/// A dedicated, named OS thread for real-time engine work (source, decoder).
///
/// Swift's cooperative pool must never block; these threads may. Names start with `sp-` so that
/// tools (and the tests) can find engine threads in `/proc/self/task/*/comm`.
final class EngineThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let name: String
    private var joined = false

    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread called `name` (at most 15 characters are kept by Linux).
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            sp_set_thread_name(String(box.name.prefix(15)))
            sp_mark_engine_thread()
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed for \(name): \(result)")
    }

    /// Waits for the thread to finish. Must not be called from the thread itself.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// `true` when called on any engine thread.
    static var isEngineThread: Bool { sp_is_engine_thread() != 0 }

    deinit {
        if !joined { pthread_detach(thread) }
    }
}
