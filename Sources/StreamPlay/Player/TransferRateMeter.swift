/// Measures how fast a transfer brings its bytes, for ``RefillPolicy``: from the session's
/// observations of the bytes received so far, each with the time it was made (the input's
/// clock, ``PlayerConfiguration/clock``). Pure: no clock and no I/O of its own.
///
/// Bytes arrive in bursts: a server that paces sends a chunk, waits, and sends the next (nginx's
/// `limit_rate` once a second, with a second's worth at once to begin with), and one burst may
/// reach the session in several reads. So the meter groups arrivals into bursts (arrivals less
/// than ``burstGap`` apart, for at most ``longestBurst``, which also slices a link that delivers
/// smoothly) and measures from the end of one burst to the end of a later one: a naive average
/// counts whatever part of a burst has come so far, and on a link paced once a second that
/// alone can make it read nearly twice the pace. The opening burst is left out, and the measure
/// starts at the end of the first burst after it, so that it begins in step with the pace.
///
/// The rate is given once it spans ``minimumBursts`` bursts and ``minimumSpan`` seconds. A
/// link that goes quiet is not left at its old speed: once no burst has ended for longer than
/// ``burstPeriod`` and ``longestBurst`` (a burst on time is seen to end by then), the time
/// since the measure began, less those, counts instead.
struct TransferRateMeter: Sendable {
    /// Arrivals closer than this to the one before belong to the same burst.
    static let burstGap = 0.1
    /// A burst ends this long after it began, gap or not.
    static let longestBurst = 0.25
    /// Bursts measured (after the one the measure starts at) before the rate is given.
    static let minimumBursts = 2
    /// Seconds measured before the rate is given.
    static let minimumSpan = 0.5
    /// The longest wait between a paced server's bursts.
    static let burstPeriod = 1.0

    /// A point of the transfer: when, and the bytes received by then.
    struct Point: Equatable, Sendable {
        var time: Double
        var received: Int
    }

    /// The bytes received at the last observation, once there was one.
    private var lastReceived: Int?
    /// The burst under way: when it began, and its latest arrival.
    private var burst: (began: Double, end: Point)?
    /// Whether the opening burst has ended.
    private var openingBurstEnded = false
    /// The end of the first burst after the opening one: the measure starts here.
    private var start: Point?
    /// The end of the latest burst that ended since, and how many did.
    private var latestEnd: Point?
    private var burstsMeasured = 0

    /// Whether an arrival began the measure: the first observation must be one (the session
    /// makes it right after it read the transfer's first bytes).
    var hasBegun: Bool { lastReceived != nil }

    /// What the session saw at `time`: `received` bytes in all. An observation with more bytes
    /// than the one before is an arrival.
    mutating func observe(received: Int, at time: Double) {
        guard let last = lastReceived else {
            lastReceived = received
            burst = (time, Point(time: time, received: received))
            return
        }
        if let current = burst, time - current.end.time >= Self.burstGap || time - current.began >= Self.longestBurst {
            burstEnded(at: current.end)
            burst = nil
        }
        guard received > last else { return }
        lastReceived = received
        let point = Point(time: time, received: received)
        burst = (burst?.began ?? time, point)
    }

    private mutating func burstEnded(at end: Point) {
        if !openingBurstEnded {
            openingBurstEnded = true
        } else if start == nil {
            start = end
        } else {
            latestEnd = end
            burstsMeasured += 1
        }
    }

    /// The transfer's measure at `now`: seconds from the end of the first burst after the
    /// opening one to the end of the latest burst (or to `now` less ``burstPeriod`` and
    /// ``longestBurst``, when that is longer), and the bytes that came in them. `nil` until it spans ``minimumBursts`` and
    /// ``minimumSpan``.
    func measure(at now: Double) -> (seconds: Double, bytes: Int)? {
        guard let start, let latestEnd, burstsMeasured >= Self.minimumBursts else { return nil }
        let seconds = max(latestEnd.time - start.time, now - start.time - Self.burstPeriod - Self.longestBurst)
        guard seconds >= Self.minimumSpan else { return nil }
        return (seconds, latestEnd.received - start.received)
    }

    /// The transfer's rate in bytes a second at `now`, once measured (see ``measure(at:)``).
    func bytesPerSecond(at now: Double) -> Double? {
        measure(at: now).map { Double($0.bytes) / $0.seconds }
    }
}
