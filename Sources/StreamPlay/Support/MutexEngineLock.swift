import CStreamPlayShim
import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the lock's ordering stated to ThreadSanitizer.
    ///
    /// On Linux the standard library's `Mutex` waits on a futex in code built without
    /// ThreadSanitizer, so TSan misses the happens-before edge a contended lock gives: it would
    /// report accesses made under the lock, and accesses to objects handed from one thread to
    /// another through the lock, as races. Every `Mutex` in the package (engine, services, CLI
    /// and tests) goes through this function, which marks the lock as acquired and released
    /// (a no-op call outside a TSan build), so the sanitizer run needs no suppressions and
    /// still reports every access made without the lock.
    @inline(never)
    package borrowing func withEngineLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The Mutex's own address: stable (it cannot be copied), and only a key here. Not the
        // value's address: taking `&value` is itself an access TSan would see before the acquire.
        let key = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            sp_tsan_lock_acquired(key)
            defer { sp_tsan_lock_releasing(key) }
            return try body(&value)
        }
    }
}
