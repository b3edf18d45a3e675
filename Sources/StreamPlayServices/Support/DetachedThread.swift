#if canImport(Glibc)
import Glibc
#endif

/// A detached OS thread for blocking work (accept, read) that must stay off the Swift task pool.
enum DetachedThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; runs it on the caller's thread if none can be made.
    static func start(_ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }
}
