import Testing
@testable import StreamPlay

/// The transfer's rate, as a rebuffer judges the link by it: the opening burst left out, and a
/// paced server's once-a-second bursts counted once per period whenever the rebuffer asks.
@Suite struct TransferRateMeterTests {
    /// nginx's limit_rate at `rate` bytes a second: a second's worth at once, then a burst at
    /// `firstBurst` seconds and every second after; the session looks every 50 ms.
    private func pacedLink(rate: Int, firstBurst: Double, until end: Double) -> TransferRateMeter {
        var meter = TransferRateMeter()
        var received = rate / 2
        meter.observe(received: received, at: 0)
        received = rate
        meter.observe(received: received, at: 0.005)
        var nextBurst = firstBurst
        var time = 0.05
        while time <= end + 1e-9 {
            if time + 1e-9 >= nextBurst {
                received += rate
                nextBurst += 1
            }
            meter.observe(received: received, at: time)
            time += 0.05
        }
        return meter
    }

    @Test("a paced link's rate is its pace, wherever its first burst falls in the second")
    func pacedLinkMeasuresItsPace() throws {
        for firstBurst in [0.1, 0.5, 0.9] {
            // Just after the second or third burst following the opening one (a burst within
            // 0.1 s of it counts as part of it). The old average, all bytes after the opening
            // burst over all the time since, read up to 1.7x the pace here.
            let now = firstBurst + 2.05
            let meter = pacedLink(rate: 14_400, firstBurst: firstBurst, until: now)
            let measure = try #require(meter.measure(at: now), "first burst at \(firstBurst)")
            #expect(measure.seconds >= RefillPolicy.rateWindow - 1e-6, "first burst at \(firstBurst): \(measure)")
            #expect(abs(Double(measure.bytes) / measure.seconds - 14_400) < 50, "first burst at \(firstBurst): \(measure)")
        }
    }

    @Test("nothing is measured before an arrival follows the opening burst")
    func openingBurstAloneMeasuresNothing() {
        var meter = TransferRateMeter()
        #expect(!meter.hasBegun)
        meter.observe(received: 8_000, at: 0)
        meter.observe(received: 16_000, at: 0.02)
        #expect(meter.hasBegun)
        #expect(meter.measure(at: 0.5) == nil)
        meter.observe(received: 16_000, at: 0.5)
        #expect(meter.measure(at: 0.6) == nil)
    }

    @Test("a link that delivers smoothly is measured from the end of the opening burst's limit")
    func smoothLink() throws {
        var meter = TransferRateMeter()
        // 100 bytes every 10 ms: 10 000 B/s, with no gap to end an opening burst.
        for step in 0...200 {
            meter.observe(received: 100 * (step + 1), at: Double(step) * 0.01)
        }
        let measure = try #require(meter.measure(at: 2))
        #expect(abs(measure.seconds - (2 - TransferRateMeter.openingBurstLimit)) < 0.02, "\(measure)")
        #expect(abs(Double(measure.bytes) / measure.seconds - 10_000) < 200, "\(measure)")
    }

    @Test("a link gone quiet for longer than a burst period reads slower as the wait goes on")
    func quietLinkSlowsDown() throws {
        var meter = pacedLink(rate: 14_400, firstBurst: 0.5, until: 3.6)
        let before = try #require(meter.measure(at: 3.6))
        #expect(abs(Double(before.bytes) / before.seconds - 14_400) < 200, "\(before)")
        // No burst after 3.5 s: at 6.5 s the bytes since the first burst (0.5 s) are spread over
        // 6.5 - 0.5 - 1 s, not the 3 s between the first and the last burst.
        meter.observe(received: 14_400 * 5, at: 6.5)
        let after = try #require(meter.measure(at: 6.5))
        #expect(after.bytes == before.bytes)
        #expect(abs(after.seconds - 5) < 1e-6, "\(after)")
    }
}
