import FoundationEssentials

/// Fetches a small text resource (a playlist, a key, an init segment) with the engine's network
/// settings and request headers, for a caller on an engine thread (never the task pool), which
/// waits while the request runs on the configuration's transport (``BlockingMediaTransfer``).
enum ResourceFetcher {
    /// The most a playlist may weigh: anything larger is not a playlist.
    static let limit = 1 << 20

    /// - Parameters:
    ///   - range: the bytes wanted (an init segment's BYTERANGE); `nil` for the whole resource.
    ///     A server that ignores the Range and sends the resource from its start is read up to
    ///     the range's end, and the range cut out.
    ///   - wakeUp: what the calling thread sleeps on; whoever makes `shouldStop` true signals it.
    ///   - shouldStop: looked at on every wake-up; `true` aborts the request, so that a stop is
    ///     never held up by a slow server.
    static func fetch(_ url: String, range: ClosedRange<Int>? = nil, configuration: PlayerConfiguration,
                      wakeUp: WakeUpSignal, shouldStop: () -> Bool) throws(PlayerError) -> Data {
        // A range is read to its end even from a server that sends the resource from its start
        // (with a chunk's slack: the early stop below comes at the chunk that reaches it).
        // (The parser bounds a range's end below Int.max; the slack must not overflow it.)
        let byteLimit = range.map { min($0.upperBound, Int.max - 1 - BlockingMediaTransfer.bufferLimit) + 1
            + BlockingMediaTransfer.bufferLimit } ?? limit
        let limits = BlockingMediaTransfer.Limits(timeout: configuration.connectTimeout + configuration.stallTimeout,
                                                  byteLimit: byteLimit)
        var data = Data()
        // Set when a whole body (200) brought the range's last byte: the request ends there.
        var wholeBodyReachedRange = false
        let (outcome, _) = BlockingMediaTransfer.perform(
            configuration.mediaRequest(url, range: range), on: configuration.transport, clock: configuration.clock,
            wakeUp: wakeUp, limits: limits, shouldStop: shouldStop
        ) { bytes, status in
            data.append(contentsOf: bytes)
            guard let range, status == 200, data.count > range.upperBound else { return true }
            wholeBodyReachedRange = true
            return false
        }
        let redacted = RedactedURL.describe(url)
        if wholeBodyReachedRange, let range { return data.subdata(in: range.lowerBound..<(range.upperBound + 1)) }
        // Over the limit: cut off at the chunk that crossed it.
        if outcome.interruption == .refused {
            let reason = range.map { "more than \(byteLimit) bytes came for bytes \($0.lowerBound)-\($0.upperBound)" }
            throw .notAudio(url: redacted, reason: reason ?? "playlist larger than \(limit) bytes")
        }
        if let error = outcome.error(url: url, limits: limits, connectTimeout: configuration.connectTimeout) {
            throw error
        }
        // The whole resource (200) ended before the range did, or the range (206) came short or
        // long: either way these are not the bytes asked for.
        if let range, outcome.status == 200 || data.count != range.count {
            throw .connectionLost(url: redacted, reason: outcome.status == 200
                ? "the resource ended at byte \(data.count), before bytes \(range.lowerBound)-\(range.upperBound)"
                : "\(data.count) bytes came for the \(range.count) of bytes \(range.lowerBound)-\(range.upperBound)")
        }
        return data
    }
}
