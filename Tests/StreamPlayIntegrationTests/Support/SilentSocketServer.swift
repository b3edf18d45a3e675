import Foundation
import Glibc

/// A Unix socket that takes connections and never answers: a sound server that hung. Counts
/// the connections it took; each stays open, unread, until the server goes.
final class SilentSocketServer: @unchecked Sendable {
    // @unchecked Sendable: the connections are guarded by their box's lock; the rest is set once.
    let path: String
    private let listener: Int32
    private let connections = Connections()

    private final class Connections: @unchecked Sendable {
        let lock = NSLock()
        var descriptors: [Int32] = []
        /// Signalled when the accepting thread ends.
        let ended = DispatchSemaphore(value: 0)
    }

    /// The address as `PULSE_SERVER` writes it.
    var address: String { "unix:\(path)" }

    init() throws {
        path = TestEnvironment.temporaryPath("silent.sock")
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            close(listener)
            throw POSIXError(.ENAMETOOLONG)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count - 1))) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        // Captures no `self`, so that the server goes when the test lets go of it.
        let (listening, taken) = (listener, connections)
        Thread {
            defer { taken.ended.signal() }
            while true {
                let connection = accept(listening, nil, nil)
                if connection < 0 { return }
                // Close-on-exec: a child a test starts must not hold the client's connection.
                // (Glibc's module has no accept4; a child forked in between is a test's risk.)
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                taken.lock.withLock { taken.descriptors.append(connection) }
            }
        }.start()
    }

    /// Connections taken so far.
    var accepted: Int { connections.lock.withLock { connections.descriptors.count } }

    deinit {
        // Shutting the listener down ends the accept; once its thread is gone, the descriptors
        // are closed, so that none is reused under it.
        shutdown(listener, Int32(SHUT_RDWR))
        connections.ended.wait()
        close(listener)
        for connection in connections.lock.withLock({ connections.descriptors }) { close(connection) }
        unlink(path)
    }
}
