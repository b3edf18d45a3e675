import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, as a function of its own (never inlined) that ThreadSanitizer can name.
    ///
    /// On Linux the standard library's `Mutex` waits on a futex in code built without
    /// ThreadSanitizer, so under contention TSan misses the happens-before edge and reports
    /// accesses made under the lock as races. Every lock in the engine goes through this one
    /// function, so the sanitizer run can suppress exactly those reports (`race:withEngineLock`
    /// in `.ci/tsan-suppressions.txt`) and still report any access made without the lock.
    @inline(never)
    borrowing func withEngineLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try withLock(body)
    }
}
