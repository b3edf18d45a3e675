import CStreamPlayShim
#if canImport(Glibc)
import Glibc
#endif

/// The package's one thread type: a dedicated, named OS thread for work that blocks or runs in
/// real time (input, decoder, curl loop, a listener's accept, the terminal's key reader).
///
/// Swift's cooperative pool must never block; these threads may. Engine threads (made with
/// ``init(name:body:)``) have names that start with `sp-`, so that tools (and the tests) can
/// find them in `/proc/self/task/*/comm`. Most are joined by their owner (an input's thread by
/// its `stop()`); a thread that ends by itself may instead drop its `EngineThread` on its way
/// out, which detaches it: `CurlLoop`'s thread does, once it has been idle, since no owner
/// waits for it. ``detached(name:body:)`` starts one that nobody waits for from the outset.
package final class EngineThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let name: String
    private var joined = false

    private final class Box {
        let name: String
        let marksEngineThread: Bool
        let body: () -> Void
        init(name: String, marksEngineThread: Bool, body: @escaping () -> Void) {
            self.name = name
            self.marksEngineThread = marksEngineThread
            self.body = body
        }
    }

    /// Starts `body` on a new engine thread called `name` (at most 15 characters are kept by
    /// Linux), to be joined.
    package init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        let result = Self.create(&thread, name: name, marksEngineThread: true, body: body)
        precondition(result == 0, "pthread_create failed for \(name): \(result)")
    }

    /// Starts `body` on a new detached thread called `name`, which nobody joins.
    /// - Returns: `false` when no thread could be made (`body` does not run).
    @discardableResult
    package static func detached(name: String, body: @escaping @Sendable () -> Void) -> Bool {
        var thread = pthread_t()
        guard create(&thread, name: name, marksEngineThread: false, body: body) == 0 else { return false }
        pthread_detach(thread)
        return true
    }

    private static func create(_ thread: inout pthread_t, name: String, marksEngineThread: Bool,
                               body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Box(name: name, marksEngineThread: marksEngineThread, body: body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            sp_set_thread_name(String(box.name.prefix(15)))
            if box.marksEngineThread { sp_mark_engine_thread() }
            box.body()
            return nil
        }, box)
        if result != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return result
    }

    /// Waits for the thread to finish. Must not be called from the thread itself.
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// `true` when called on any engine thread.
    package static var isEngineThread: Bool { sp_is_engine_thread() != 0 }

    deinit {
        if !joined { pthread_detach(thread) }
    }
}
