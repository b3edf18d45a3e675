/// How much audio a rebuffer gathers before playback goes on, judged from the link.
///
/// A fixed refill is wrong both ways: on a link that outruns the stream the stall was a
/// hiccup (a busy CPU, a late packet, a prebuffer short of the gap between the link's first
/// bursts) and a long refill only lengthens the silence; on a link slower than the stream a
/// short refill stalls again and again. So a link measured slower than the stream, with a known
/// length, buffers what the rest of the track lacks, and stalls once instead of many times.
///
/// A first stall (``OutputGate/isFirstStall(settledAfter:)``: the first since output started
/// from its prebuffer, or one long after the last refill) refills only ``firstStallRefill``,
/// unless the link has been measured and is not clearly faster than the stream. Playback starts on just the
/// prebuffer, so a stall that early says only that the link's first bursts came further apart
/// than that, and the standard refill would turn a gap of a few tens of milliseconds into a
/// second of silence. A stall soon after a refill refills the standard amount, whatever the
/// measure says: a link that stalls again is not one that outruns the stream, and a young
/// measure of a server that paces unevenly (nginx's `limit_rate` counts whole seconds) can
/// read half again too fast.
struct RefillPolicy: Sendable {
    /// Seconds to refill at a stall that is not a first one, or on a link measured about as fast
    /// as the stream.
    let standardRefill: Double
    /// Seconds to refill at a first stall: twice the prebuffer (at least 0.1 s), at most
    /// ``standardRefill``.
    let firstStallRefill: Double

    /// - Parameters:
    ///   - standardRefill: ``PlayerConfiguration/rebufferRefill``.
    ///   - prebuffer: ``PlayerConfiguration/prebuffer``, what output starts with.
    init(standardRefill: Double, prebuffer: Double) {
        self.standardRefill = standardRefill
        firstStallRefill = min(standardRefill, max(2 * prebuffer, 0.1))
    }

    /// A stall that begins this many seconds after the last refill ended is a first stall again:
    /// the link kept up in between.
    static let settledAfter = 30.0
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
    ///   - firstStall: whether this is a first stall (``OutputGate/isFirstStall(settledAfter:)``).
    func refillSeconds(bytesPerSecond: Double, linkBytesPerSecond: Double?, remainingBytes: Int?,
                       firstStall: Bool) -> Double {
        guard let rate = linkBytesPerSecond, rate > 0, bytesPerSecond > 0 else {
            return firstStall ? firstStallRefill : standardRefill
        }
        if rate >= Self.fastLink * bytesPerSecond { return firstStall ? firstStallRefill : standardRefill }
        guard rate < bytesPerSecond, let remainingBytes else { return standardRefill }
        // The rest arrives in remaining/rate seconds and plays in remaining/bitrate: buffering
        // the difference lets it play to the end without another stall.
        let shortfall = Double(max(remainingBytes, 0)) * (1 / rate - 1 / bytesPerSecond)
        return shortfall + Self.margin
    }

    /// Bytes a refill of `seconds` gathers in the input ring: at most three quarters of the
    /// ring's `capacity`, since a ring that fills pauses the transfer and a refill waiting for
    /// more than the ring holds would never end. Seconds too many to count in bytes (a server
    /// that gives a length near `Int.max`, as some do for live streams) take the cap, as NaN
    /// does; a negative refill, `-infinity` included, takes none.
    static func refillBytes(seconds: Double, bytesPerSecond: Int, ringCapacity capacity: Int) -> Int {
        let wanted = seconds * Double(bytesPerSecond)
        let most = capacity * 3 / 4
        return wanted < Double(most) ? Int(max(wanted, 0)) : most
    }
}
