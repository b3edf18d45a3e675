import StreamPlay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on one stored token, held across read, check, fetch and write, so that
/// only one holder at a time asks the server for a token and the others take up the one it
/// stored.
///
/// Two layers: a process-wide table of held names (other tasks and threads of this process wait
/// on it), and, when the lock has a file, `flock(2)` on that file (other processes wait on it).
/// Waiting polls every few milliseconds with `Task.sleep` and never blocks a thread of the
/// cooperative pool; the file descriptor is opened, locked and closed by whichever thread runs
/// ``acquire(timeout:)`` and ``release()``, and is never shared (the lock state lives in the
/// kernel's open file description, not in a thread).
public final class TokenLock: Sendable {
    /// What the lock is called in this process (the file's path, or a name for a lock without
    /// a file).
    public let name: String
    /// The lock file (created 0600), or `nil` for a lock within this process only.
    public let path: String?
    private let descriptor = Mutex<Int32>(-1)

    private static let held = Mutex<Set<String>>([])

    /// A lock on `path` (shared with other processes), or, without a path, on `name` within
    /// this process only.
    public init(path: String?, name: String? = nil) {
        self.path = path
        self.name = path ?? ("process:" + (name ?? ""))
    }

    /// Waits until the lock is this object's.
    /// - Throws: ``TokenStoreError/fileSystem(path:reason:)`` when the lock file cannot be
    ///   opened, or when the lock was not free within `timeout` seconds.
    public func acquire(timeout: Double = 60) async throws(TokenStoreError) {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(max(0, timeout) * 1000))
        while true {
            if try tryAcquire() { return }
            guard clock.now < deadline else {
                throw .fileSystem(path: path ?? name, reason: "the token lock was not free within \(Int(timeout)) s")
            }
            do {
                try await Task.sleep(for: .milliseconds(15))
            } catch {
                throw .fileSystem(path: path ?? name, reason: "cancelled while waiting for the token lock")
            }
        }
    }

    /// Gives the lock up (closing the file releases the `flock`).
    public func release() {
        let fd = descriptor.withEngineLock { value in
            let old = value
            value = -1
            return old
        }
        if fd >= 0 { close(fd) }
        _ = Self.held.withEngineLock { $0.remove(name) }
    }

    /// One attempt: the process-wide name first, then the file.
    private func tryAcquire() throws(TokenStoreError) -> Bool {
        let taken = Self.held.withEngineLock { $0.insert(name).inserted }
        guard taken else { return false }
        guard let path else { return true }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            let reason = String(cString: strerror(errno))
            _ = Self.held.withEngineLock { $0.remove(name) }
            throw .fileSystem(path: path, reason: reason)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK || errno == EINTR
            let reason = String(cString: strerror(errno))
            close(fd)
            _ = Self.held.withEngineLock { $0.remove(name) }
            if busy { return false }
            throw .fileSystem(path: path, reason: reason)
        }
        descriptor.withEngineLock { $0 = fd }
        return true
    }
}
