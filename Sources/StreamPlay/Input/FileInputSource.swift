#if canImport(Glibc)
import Glibc
#endif

/// Reads a local file on a dedicated thread into the ring.
///
/// libcurl's file:// handler cannot be paused without buffering the rest of the file in
/// memory, so files get their own small reader: the same ring, the same generations.
final class FileInputSource: InputSource, @unchecked Sendable {
    let control: InputControl
    private let path: String
    private let ring: ByteRing
    private let wake = ThreadSignal()
    private var thread: EngineThread?
    private static let chunkSize = 32 * 1024

    init(path: String, ring: ByteRing, control: InputControl) {
        self.path = path
        self.ring = ring
        self.control = control
        let wake = self.wake
        ring.setProducerWaker { wake.signal() }
        thread = EngineThread(name: "sp-file") { [self] in run() }
    }

    func start(at offset: Int, generation: Int) {
        control.requestRestart(.init(offset: offset, generation: generation))
        wake.signal()
    }

    func stop() {
        control.requestStop()
        wake.signal()
        thread?.join()
        ring.setProducerWaker(nil)
    }

    private func run() {
        var descriptor: Int32 = -1
        defer { if descriptor >= 0 { close(descriptor) } }
        var position = 0
        var generation: Int?
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }

        var seenCommands = -1
        while true {
            let commands = control.takeCommands(since: &seenCommands)
            if commands.stop { break }
            if let restart = commands.restart {
                ring.beginGeneration(restart.generation)
                if descriptor < 0 {
                    // O_NONBLOCK: opening a FIFO must not block the thread (and with it stop()).
                    descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                    if descriptor < 0 {
                        let code = errno
                        let error: PlayerError = code == ENOENT || code == ENOTDIR
                            ? .fileNotFound(path: path)
                            : .fileUnreadable(path: path, reason: String(cString: strerror(code)))
                        control.finish(generation: restart.generation, with: .failed(error))
                        continue
                    }
                    var status = stat()
                    if fstat(descriptor, &status) != 0 || (status.st_mode & S_IFMT) != S_IFREG {
                        let reason = (status.st_mode & S_IFMT) == S_IFDIR ? "is a directory" : "is not a regular file"
                        close(descriptor)
                        descriptor = -1
                        control.finish(generation: restart.generation,
                                       with: .failed(.fileUnreadable(path: path, reason: reason)))
                        continue
                    }
                    let size = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
                    control.publish(info: InputInfo(contentType: nil, totalLength: size, supportsRanges: size != nil))
                }
                position = restart.offset
                generation = restart.generation
            }
            guard let current = generation else {
                wake.wait(timeout: 1)
                continue
            }
            guard ring.freeSpace >= Self.chunkSize || ring.announceProducerWaiting(for: Self.chunkSize) else {
                wake.wait(timeout: 1)
                continue
            }
            let count = pread(descriptor, buffer.baseAddress, Self.chunkSize, off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                control.finish(generation: current, with: .failed(.fileUnreadable(path: path, reason: reason)))
                generation = nil
            } else if count == 0 {
                control.finish(generation: current, with: .finished)
                generation = nil
            } else {
                _ = ring.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                position += count
            }
        }
    }
}
