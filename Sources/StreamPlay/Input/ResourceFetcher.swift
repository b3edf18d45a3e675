import CCurl
import CStreamPlayShim
import FoundationEssentials

/// Fetches a small text resource (a playlist, a key) with the engine's network settings, for a
/// caller on an engine thread (never the task pool), which waits while the ``CurlLoop`` runs
/// the request.
enum ResourceFetcher {
    /// The most a playlist may weigh: anything larger is not a playlist.
    static let limit = 1 << 20

    /// - Parameter shouldStop: polled during the transfer (about every 50 ms); `true` aborts
    ///   it, so that a stop is never held up by a slow server.
    static func fetch(_ url: String, configuration: PlayerConfiguration,
                      shouldStop: () -> Bool) throws(PlayerError) -> Data {
        // The same headers as the stream's: a playlist or key behind authorization needs them.
        guard let easy = CurlEasy(url: url, configuration: configuration) else {
            throw .transferFailed(url: RedactedURL.describe(url), reason: "curl_easy_init failed")
        }
        sp_curl_setopt_long(easy.handle, CURLOPT_TIMEOUT_MS,
                            Int((configuration.connectTimeout + configuration.stallTimeout) * 1000))
        var data = Data()
        var overflow = false
        let outcome = CurlBlockingRequest(easy, byteLimit: limit).perform(shouldStop: shouldStop) { bytes, _ in
            guard data.count + bytes.count <= limit else {
                overflow = true
                return false
            }
            data.append(contentsOf: bytes)
            return true
        }
        // Over the limit: refused here, or cut off by the loop at the chunk that crossed it.
        if overflow || outcome.interruption == .refused {
            throw .notAudio(url: RedactedURL.describe(url), reason: "playlist larger than \(limit) bytes")
        }
        guard outcome.code == CURLE_OK else {
            // The request is over: the handle is this thread's again.
            throw CurlRequest.error(for: outcome.code, handle: easy.handle, url: url, received: data.count,
                                    configuration: configuration)
        }
        return data
    }
}
