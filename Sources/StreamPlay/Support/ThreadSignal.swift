#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An auto-reset event that a dedicated engine thread sleeps on until another thread signals it.
///
/// Engine threads block here (never the Swift cooperative pool). A signal given while nobody
/// waits is remembered, so a wake-up that races with the decision to sleep is never lost.
package final class ThreadSignal: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var signalled = false

    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Wakes the waiting thread, or the next one to wait.
    package func signal() {
        pthread_mutex_lock(mutex)
        signalled = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until signalled or until `timeout` seconds have passed.
    /// - Returns: `true` when woken by a signal, `false` on timeout.
    @discardableResult
    package func wait(timeout: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = Int(timeout)
        let nanoseconds = Int(deadline.tv_nsec) + Int((timeout - Double(whole)) * 1e9)
        deadline.tv_sec += whole + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !signalled {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        let woken = signalled
        signalled = false
        return woken
    }
}
