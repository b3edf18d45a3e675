import FoundationEssentials

/// Fetches a small text resource (a playlist, a key, an init segment) with the engine's network
/// settings and request headers, for a caller on an engine thread (never the task pool), which
/// waits while the request runs on the configuration's transport (``BlockingMediaTransfer``).
enum ResourceFetcher {
    /// The most a playlist may weigh: anything larger is not a playlist.
    static let limit = 1 << 20

    /// - Parameters:
    ///   - wakeUp: what the calling thread sleeps on; whoever makes `shouldStop` true signals it.
    ///   - shouldStop: looked at on every wake-up; `true` aborts the request, so that a stop is
    ///     never held up by a slow server.
    static func fetch(_ url: String, configuration: PlayerConfiguration, wakeUp: WakeUpSignal,
                      shouldStop: () -> Bool) throws(PlayerError) -> Data {
        let limits = BlockingMediaTransfer.Limits(timeout: configuration.connectTimeout + configuration.stallTimeout,
                                                  byteLimit: limit)
        var data = Data()
        let (outcome, _) = BlockingMediaTransfer.perform(
            configuration.mediaRequest(url), on: configuration.transport, clock: configuration.clock, wakeUp: wakeUp,
            limits: limits, shouldStop: shouldStop
        ) { bytes, _ in
            data.append(contentsOf: bytes)
            return true
        }
        // Over the limit: cut off at the chunk that crossed it.
        if outcome.interruption == .refused {
            throw .notAudio(url: RedactedURL.describe(url), reason: "playlist larger than \(limit) bytes")
        }
        if let error = outcome.error(url: url, limits: limits, connectTimeout: configuration.connectTimeout) {
            throw error
        }
        return data
    }
}
