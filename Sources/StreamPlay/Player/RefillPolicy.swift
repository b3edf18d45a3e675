/// How much audio a rebuffer gathers before playback goes on, judged from the link.
///
/// A fixed refill is wrong both ways: on a link that outruns the stream the stall was a
/// hiccup (a busy CPU, a late packet) and a long refill only lengthens the silence; on a link
/// slower than the stream a short refill stalls again and again. Once the link's speed is
/// known, a fast link refills briefly, and a slow one with a known length buffers what the rest
/// of the track lacks, so that it stalls once instead of many times.
struct RefillPolicy: Sendable {
    /// Seconds to refill while the link's speed is unknown, or it about matches the stream.
    let standardRefill: Double

    /// Seconds to refill on a link clearly faster than the stream.
    static let hiccupRefill = 0.5
    /// Seconds added to the computed shortfall, for the link's own jitter: servers that
    /// throttle send bursts about a second apart (nginx's limit_rate does).
    static let margin = 1.0
    /// A link this much faster than the stream counts as fast.
    static let fastLink = 1.1

    /// Seconds of audio that must be buffered before playback goes on.
    /// - Parameters:
    ///   - bytesPerSecond: the stream's bitrate in bytes.
    ///   - linkBytesPerSecond: the transfer's rate, once ``TransferRateMeter`` has measured it.
    ///   - remainingBytes: bytes of the resource not received yet, when its length is known.
    func refillSeconds(bytesPerSecond: Double, linkBytesPerSecond: Double?, remainingBytes: Int?) -> Double {
        guard let rate = linkBytesPerSecond, rate > 0, bytesPerSecond > 0 else { return standardRefill }
        if rate >= Self.fastLink * bytesPerSecond { return min(standardRefill, Self.hiccupRefill) }
        guard rate < bytesPerSecond, let remainingBytes else { return standardRefill }
        // The rest arrives in remaining/rate seconds and plays in remaining/bitrate: buffering
        // the difference lets it play to the end without another stall.
        let shortfall = Double(max(remainingBytes, 0)) * (1 / rate - 1 / bytesPerSecond)
        return shortfall + Self.margin
    }
}
