import CCurl
import CStreamPlayShim
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the last few bytes of a file or an HTTP resource (where an ID3v1 tag sits) beside the
/// input that plays it, as mpv and ffmpeg do: a file by `pread`, a URL by one small Range request.
///
/// Each read is one blocking call on the caller's thread (a URL's runs on a thread of its own,
/// beside the playback, and waits for its request on the ``CurlLoop``); its easy handle lives
/// and dies in that call.
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

    /// The last `count` bytes of the resource at `url`, `totalLength` bytes long, by a Range
    /// request on the ``CurlLoop``; `nil` when the server does not answer with exactly that range.
    /// - Parameters:
    ///   - url: the resource.
    ///   - totalLength: its size, as its response said.
    ///   - count: how many bytes at its end.
    ///   - configuration: the engine's network settings and request headers.
    ///   - shouldStop: polled during the transfer; `true` aborts it.
    static func remote(_ url: String, totalLength: Int, count: Int, configuration: PlayerConfiguration,
                       shouldStop: () -> Bool) -> [UInt8]? {
        let wanted = min(count, totalLength)
        guard wanted > 0, let easy = CurlEasy(url: url, configuration: configuration) else { return nil }
        easy.requestRange(from: totalLength - wanted, through: totalLength - 1)
        sp_curl_setopt_long(easy.handle, CURLOPT_TIMEOUT_MS, Int(min(configuration.connectTimeout, timeout) * 1000))
        var data: [UInt8] = []
        let outcome = CurlBlockingRequest(easy, byteLimit: wanted).perform(shouldStop: shouldStop) { bytes, _ in
            // More than the range asked for: the server ignored it (the byte limit cuts the
            // transfer off on the loop thread; this check keeps the tag exact regardless).
            guard data.count + bytes.count <= wanted else { return false }
            data.append(contentsOf: bytes)
            return true
        }
        // The request is over: the handle is this thread's again.
        guard outcome.code == CURLE_OK, easy.responseCode == 206, data.count == wanted else { return nil }
        return data
    }
}
