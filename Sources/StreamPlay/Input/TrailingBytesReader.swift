import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the last few bytes of a file or an HTTP resource (where an ID3v1 tag sits) beside the
/// input that plays it, as mpv and ffmpeg do: a file by `pread`, a URL by one small Range request.
///
/// Each read is one blocking call on the caller's thread (a URL's runs on a thread of its own,
/// beside the playback, and waits for its request: ``BlockingMediaTransfer``).
/// It never reads more than asked: a server that answers a Range request with the whole body
/// (200) is cut off at its first bytes and means "no trailing bytes", as does any failure.
enum TrailingBytesReader {
    /// The most a Range request for a tag may take, whole: the track's names wait for it, and a
    /// tag is not worth a long wait (the connect timeout, if shorter, bounds it too).
    static let timeout = 2.0

    /// The last `count` bytes of the file at `path`, or `nil` if it cannot be read.
    static func file(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let wanted = min(count, size)
        var bytes = [UInt8](repeating: 0, count: wanted)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(size - wanted)) }
        return read == wanted ? bytes : nil
    }

    /// The last `count` bytes of the resource at `url`, `totalLength` bytes long, by one Range
    /// request on the configuration's transport; `nil` when the answer is not exactly that range.
    /// Blocks the calling thread for at most ``timeout`` seconds of the configuration's clock
    /// (the connect timeout, if shorter).
    /// - Parameters:
    ///   - url: the resource.
    ///   - totalLength: its size, as its response said.
    ///   - count: how many bytes at its end.
    ///   - configuration: the engine's transport, clock, network settings and request headers.
    ///   - wakeUp: what the calling thread sleeps on; whoever makes `shouldStop` true signals it.
    ///   - shouldStop: looked at on every wake-up; `true` aborts the request.
    static func remote(_ url: String, totalLength: Int, count: Int, configuration: PlayerConfiguration,
                       wakeUp: WakeUpSignal = WakeUpSignal(), shouldStop: () -> Bool) -> [UInt8]? {
        let wanted = min(count, totalLength)
        guard wanted > 0 else { return nil }
        var data: [UInt8] = []
        // More than the range asked for (a server that ignored it) is cut off at the chunk that
        // crosses the byte limit, and means "no trailing bytes".
        let limits = BlockingMediaTransfer.Limits(timeout: min(configuration.connectTimeout, timeout), byteLimit: wanted)
        let (outcome, _) = BlockingMediaTransfer.perform(
            configuration.mediaRequest(url, range: (totalLength - wanted)...(totalLength - 1)),
            on: configuration.transport, clock: configuration.clock, wakeUp: wakeUp, limits: limits,
            shouldStop: shouldStop
        ) { bytes, _ in
            data.append(contentsOf: bytes)
            return true
        }
        guard outcome.end == .completed, outcome.status == 206, data.count == wanted else { return nil }
        return data
    }
}
