import CCurl
import CStreamPlayShim
import FoundationEssentials

/// Fetches a small text resource (a playlist) in one blocking call, with the engine's network
/// settings. Runs on an engine thread, never on the task pool.
enum ResourceFetcher {
    /// The most a playlist may weigh: anything larger is not a playlist.
    static let limit = 1 << 20

    private final class Sink {
        var data = Data()
        var overflow = false
        let shouldStop: () -> Bool
        init(shouldStop: @escaping () -> Bool) { self.shouldStop = shouldStop }
    }

    /// - Parameter shouldStop: polled during the transfer (about once a second, or sooner);
    ///   `true` aborts it, so that a stop is never held up by a slow server.
    static func fetch(_ url: String, configuration: PlayerConfiguration,
                      shouldStop: @escaping () -> Bool) throws(PlayerError) -> Data {
        // The same headers as the stream's: a playlist or key behind authorization needs them.
        guard let easy = CurlEasy(url: url, configuration: configuration) else {
            throw .transferFailed(url: RedactedURL.describe(url), reason: "curl_easy_init failed")
        }
        let handle = easy.handle
        // The handle is used through its raw pointer to the end, error mapping included.
        defer { withExtendedLifetime(easy) {} }
        let sink = Sink(shouldStop: shouldStop)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        sp_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int((configuration.connectTimeout + configuration.stallTimeout) * 1000))
        sp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        sp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let bytes = size * count
            guard sink.data.count + bytes <= ResourceFetcher.limit, let data else {
                sink.overflow = true
                return 0
            }
            sink.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes)
            return bytes
        }
        sp_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        sp_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        sp_curl_setopt_xferinfo_callback(handle) { context, _, _, _, _ in
            Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().shouldStop() ? 1 : 0
        }
        let code = curl_easy_perform(handle)
        let redacted = RedactedURL.describe(url)
        if sink.overflow {
            throw .notAudio(url: redacted, reason: "playlist larger than \(limit) bytes")
        }
        guard code == CURLE_OK else {
            throw CurlRequest.error(for: code, handle: handle, url: url, received: sink.data.count, configuration: configuration)
        }
        return sink.data
    }
}
