/// Measures how fast a transfer brings its bytes, for ``RefillPolicy``: from the session's
/// observations of the bytes received so far, each with the time it was made (the input's
/// clock, ``PlayerConfiguration/clock``). Pure: no clock and no I/O of its own.
///
/// Two things make a naive average (bytes since the start over time since the start) wrong:
/// - Servers send a burst before they pace: nginx's `limit_rate` lets a second's worth go at
///   once. So the measure starts after the opening burst: the arrivals that follow each other
///   within ``openingBurstGap``, for at most ``openingBurstLimit`` (a link that delivers
///   smoothly has no gap, and its measure must start all the same).
/// - Paced servers send in bursts about a second apart (nginx counts whole seconds), and the
///   first one after the opening burst comes at any point in that second. So the measure runs
///   from an arrival to an arrival: from the first one after the opening burst to the latest,
///   counting the bytes that came after the first. Bursts of a paced link then count exactly
///   once per period, whichever moment the rebuffer asks.
///
/// A link that goes quiet is not left at its old speed: once nothing has come for longer than
/// ``burstPeriod``, the time since the first arrival, less that period, counts instead.
struct TransferRateMeter: Sendable {
    /// Arrivals closer than this to the one before belong to the opening burst.
    static let openingBurstGap = 0.1
    /// The opening burst ends this long after the first arrival, gap or not.
    static let openingBurstLimit = 0.25
    /// The longest wait between a paced server's bursts.
    static let burstPeriod = 1.0

    /// A point of the transfer: when, and the bytes received by then.
    private struct Point {
        var time: Double
        var received: Int
    }

    /// The first arrival, which began the opening burst.
    private var first: Point?
    /// The latest arrival of the opening burst, while it lasts.
    private var burstEnd: Point?
    /// The first arrival after the opening burst: the measure starts here.
    private var start: Point?
    /// The latest arrival.
    private var latest: Point?
    /// Whether the opening burst is over.
    private var burstOver = false

    /// Whether an arrival began the measure: the first observation must be one (the session
    /// makes it right after it read the transfer's first bytes).
    var hasBegun: Bool { first != nil }

    /// What the session saw at `time`: `received` bytes in all. An observation with more bytes
    /// than the one before is an arrival.
    mutating func observe(received: Int, at time: Double) {
        guard let first, let burstEnd else {
            let point = Point(time: time, received: received)
            first = point
            burstEnd = point
            latest = point
            return
        }
        let arrived = received > (latest?.received ?? received)
        if !burstOver {
            if time - burstEnd.time >= Self.openingBurstGap || time - first.time >= Self.openingBurstLimit {
                burstOver = true
            } else {
                if arrived {
                    self.burstEnd = Point(time: time, received: received)
                    latest = self.burstEnd
                }
                return
            }
        }
        guard arrived else { return }
        let point = Point(time: time, received: received)
        if start == nil {
            // The first arrival after the burst: its bytes came before the measure starts.
            start = point
        }
        latest = point
    }

    /// The transfer's measure at `now`: seconds from the first arrival after the opening burst
    /// to the latest (or to `now` less ``burstPeriod``, when that is longer), and the bytes that
    /// came in them. `nil` until an arrival followed the opening burst.
    func measure(at now: Double) -> (seconds: Double, bytes: Int)? {
        guard let start, let latest else { return nil }
        let seconds = max(latest.time - start.time, now - start.time - Self.burstPeriod)
        return (seconds, latest.received - start.received)
    }
}
