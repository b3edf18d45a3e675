#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stdout and stderr (the CLI imports only FoundationEssentials, which has
/// no FileHandle; stdio's buffering would hold back a progress line).
enum StandardStream {
    static func output(_ text: String) { write(text, to: STDOUT_FILENO) }
    static func error(_ text: String) { write(text, to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
        bytes.removeAll()
    }
}
