/// How much audio a rebuffer gathers before playback goes on, judged from the link.
///
/// A fixed refill is wrong both ways: on a link that outruns the stream the stall was a
/// hiccup (a busy CPU, a late packet) and a long refill only lengthens the silence; on a link
/// slower than the stream a short refill stalls again and again. So a link measured slower
/// than the stream, with a known length, buffers what the rest of the track lacks, and stalls
/// once instead of many times.
///
/// Only a transfer's first stall is refilled briefly. Before the speed is known that is
/// ``firstStallRefill``: the start queued just the prebuffer, so a stall that early says only
/// that the prebuffer was short of the gap between the link's first bursts (a server that
/// paces in small chunks, a busy machine), and the standard refill would turn a gap of a few
/// tens of milliseconds into a second of silence. On a link measured clearly faster than the
/// stream it is ``hiccupRefill``. A link that stalls again is not one that outruns the stream,
/// whatever the measure says: a young measure of a server that paces unevenly (nginx's
/// `limit_rate` counts whole seconds) can read half again too fast, and brief refills would
/// then stall again and again. Later stalls refill the standard amount, or a slow link's
/// shortfall.
struct RefillPolicy: Sendable {
    /// Seconds to refill while the link's speed is unknown, or it about matches the stream.
    let standardRefill: Double
    /// Seconds to refill at a transfer's first stall while its speed is unknown: twice the
    /// prebuffer, at most ``standardRefill``.
    let firstStallRefill: Double

    /// - Parameters:
    ///   - standardRefill: ``PlayerConfiguration/rebufferRefill``.
    ///   - prebuffer: ``PlayerConfiguration/prebuffer``, what output starts with.
    init(standardRefill: Double, prebuffer: Double) {
        self.standardRefill = standardRefill
        firstStallRefill = min(standardRefill, 2 * prebuffer)
    }

    /// Seconds to refill at a transfer's first stall on a link clearly faster than the stream.
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
    ///   - firstStall: whether this is the transfer's first stall.
    func refillSeconds(bytesPerSecond: Double, linkBytesPerSecond: Double?, remainingBytes: Int?,
                       firstStall: Bool) -> Double {
        guard let rate = linkBytesPerSecond, rate > 0, bytesPerSecond > 0 else {
            return firstStall ? firstStallRefill : standardRefill
        }
        if rate >= Self.fastLink * bytesPerSecond {
            return firstStall ? min(standardRefill, Self.hiccupRefill) : standardRefill
        }
        guard rate < bytesPerSecond, let remainingBytes else { return standardRefill }
        // The rest arrives in remaining/rate seconds and plays in remaining/bitrate: buffering
        // the difference lets it play to the end without another stall.
        let shortfall = Double(max(remainingBytes, 0)) * (1 / rate - 1 / bytesPerSecond)
        return shortfall + Self.margin
    }
}
