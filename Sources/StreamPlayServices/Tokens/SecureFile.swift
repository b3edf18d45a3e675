import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Owner-only files: created 0600 (directories 0700) by open(2)'s own mode argument, checked
/// on every read, replaced by rename.
enum SecureFile {
    /// The file's bytes, or `nil` if it does not exist.
    static func read(_ path: String) throws(TokenStoreError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure(path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(path) }
        guard status.st_mode & 0o077 == 0 else { throw .insecurePermissions(path: path, mode: status.st_mode & 0o777) }
        guard status.st_uid == getuid() else { throw .fileSystem(path: path, reason: "owned by another user") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
            guard data.count < 1 << 20 else { throw .fileSystem(path: path, reason: "too large for a token file") }
        }
        return data
    }

    /// Creates `directory` (and missing parents) with mode 0700; an existing one must not be
    /// open to others.
    static func makeDirectory(_ directory: String) throws(TokenStoreError) {
        var status = stat()
        if stat(directory, &status) == 0 {
            guard status.st_mode & 0o077 == 0 else {
                throw .insecurePermissions(path: directory, mode: status.st_mode & 0o777)
            }
            return
        }
        let parent = directory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty, stat(parent, &status) != 0 {
            // Parents (such as ~/.local/state) are made as the XDG spec has them: 0700.
            try makeDirectory(parent)
        }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure(directory) }
    }

    /// Writes `bytes` to a new 0600 file next to `path`, flushes it, and renames it over `path`.
    static func replace(_ path: String, with bytes: [UInt8]) throws(TokenStoreError) {
        let temporary = "\(path).new-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        guard try createExclusive(temporary, with: bytes) else { throw .fileSystem(path: temporary, reason: "exists") }
        guard rename(temporary, path) == 0 else {
            let error = failure(path)
            unlink(temporary)
            throw error
        }
    }

    /// Creates `path` with mode 0600 and writes `bytes`; `false` if it already exists.
    static func createExclusive(_ path: String, with bytes: [UInt8]) throws(TokenStoreError) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw failure(path)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = failure(path)
                close(descriptor)
                unlink(path)
                throw error
            }
            written += count
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced else {
            unlink(path)
            throw .fileSystem(path: path, reason: "fsync failed")
        }
        return true
    }

    private static func failure(_ path: String) -> TokenStoreError {
        .fileSystem(path: path, reason: String(cString: strerror(errno)))
    }
}
