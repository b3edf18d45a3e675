import Testing
@testable import StreamPlay

/// The transfer's rate, as a rebuffer judges the link by it: the opening burst left out, and a
/// paced server's bursts counted once per period, however they are split into reads and
/// whenever the rebuffer asks.
@Suite struct TransferRateMeterTests {
    /// nginx's limit_rate at `rate` bytes a second: a second's worth at once, then a burst at
    /// `firstBurst` seconds and every second after, each read in two halves 5 ms apart when
    /// `split`. The session looks every 50 ms, and right after each read.
    private func pacedLink(rate: Int, firstBurst: Double, split: Bool, until end: Double,
                           looking: (TransferRateMeter, Double) -> Void = { _, _ in }) -> TransferRateMeter {
        var events: [(time: Double, bytes: Int)] = [(0, rate / 2), (0.005, rate - rate / 2)]
        var burst = firstBurst
        while burst <= end {
            events += split ? [(burst, rate / 3), (burst + 0.005, rate - rate / 3)] : [(burst, rate)]
            burst += 1
        }
        var polls = 1
        while Double(polls) * 0.05 <= end {
            events.append((Double(polls) * 0.05, 0))
            polls += 1
        }
        events.sort { $0.time < $1.time }
        var meter = TransferRateMeter()
        var received = 0
        for event in events {
            received += event.bytes
            meter.observe(received: received, at: event.time)
            looking(meter, event.time)
        }
        return meter
    }

    @Test("a paced link's rate is its pace, its bursts split into reads or not, wherever the first falls",
          arguments: [false, true], [0.15, 0.5, 0.9])
    func pacedLinkMeasuresItsPace(split: Bool, firstBurst: Double) {
        var rates: [Double] = []
        var firstMeasured: Double?
        _ = pacedLink(rate: 14_400, firstBurst: firstBurst, split: split, until: firstBurst + 5) { meter, time in
            guard let rate = meter.bytesPerSecond(at: time) else { return }
            firstMeasured = firstMeasured ?? time
            rates.append(rate)
        }
        // Known once two bursts followed the one the measure starts at (ended by a gap).
        #expect(firstMeasured.map { $0 <= firstBurst + 2.2 } == true, "split \(split), first burst \(firstBurst)")
        // A naive average (bytes after the opening burst over the time since) read up to
        // nearly twice the pace just after a burst; here every reading is the pace.
        #expect(!rates.isEmpty && rates.allSatisfy { abs($0 - 14_400) < 150 },
                "split \(split), first burst \(firstBurst): \(rates.min() ?? 0)...\(rates.max() ?? 0)")
    }

    @Test("nothing is measured before two bursts followed the first after the opening one")
    func tooFewBurstsMeasureNothing() {
        var meter = TransferRateMeter()
        #expect(!meter.hasBegun)
        meter.observe(received: 8_000, at: 0)
        meter.observe(received: 16_000, at: 0.02)
        #expect(meter.hasBegun)
        // The first burst after the opening one, then one more: still no rate.
        for (time, received) in [(0.5, 16_000), (0.6, 24_000), (0.8, 24_000), (1.6, 32_000), (1.8, 32_000)] {
            meter.observe(received: received, at: time)
        }
        #expect(meter.measure(at: 1.8) == nil)
        meter.observe(received: 40_000, at: 2.6)
        meter.observe(received: 40_000, at: 2.8)
        let measure = meter.measure(at: 2.8)
        #expect(measure?.bytes == 16_000 && measure.map { abs($0.seconds - 2) < 1e-9 } == true, "\(String(describing: measure))")
    }

    @Test("a link that delivers smoothly is measured in slices of the longest burst")
    func smoothLink() throws {
        var meter = TransferRateMeter()
        // 100 bytes every 10 ms: 10 000 B/s, with no gap to end a burst.
        for step in 0...200 {
            meter.observe(received: 100 * (step + 1), at: Double(step) / 100)
        }
        let rate = try #require(meter.bytesPerSecond(at: 2))
        #expect(abs(rate - 10_000) < 200, "\(rate)")
    }

    @Test("a link gone quiet for longer than a burst period reads slower as the wait goes on")
    func quietLinkSlowsDown() throws {
        var meter = pacedLink(rate: 14_400, firstBurst: 0.5, split: false, until: 3.7)
        let before = try #require(meter.measure(at: 3.7))
        #expect(before.bytes == 3 * 14_400 && abs(before.seconds - 3) < 1e-9, "\(before)")
        // No burst after 3.5 s: at 6.5 s the bytes since the measure began (0.5 s) are spread
        // over 6.5 - 0.5 - 1.25 s, not the 3 s between its first and its last burst.
        meter.observe(received: 14_400 * 5, at: 6.5)
        let after = try #require(meter.measure(at: 6.5))
        #expect(after.bytes == before.bytes)
        #expect(abs(after.seconds - 4.75) < 1e-9, "\(after)")
    }
}
