import Testing
@testable import StreamPlay

/// How much a rebuffer refills, from the link's measured speed.
@Suite struct RefillPolicyTests {
    let policy = RefillPolicy(standardRefill: 2, prebuffer: 0.1)
    let bitrate = 16_000.0  // 128 kbps

    @Test func unknownSpeedRefillsTheStandardAmount() {
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: nil, remainingBytes: 100_000, firstStall: false) == 2)
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 0, remainingBytes: nil, firstStall: false) == 2)
    }

    @Test func fastLinkRefillsBrieflyOnlyAtAFirstStall() {
        // 1.5× the bitrate: the stall was a hiccup.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 24_000, remainingBytes: 500_000, firstStall: true)
                    == 0.2)
        // A link measured fast that stalls again is not fast: a young measure of uneven bursts
        // can read too high, and brief refills would flap.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 24_000, remainingBytes: 500_000, firstStall: false)
                    == 2)
    }

    @Test func linkNearTheBitrateRefillsTheStandardAmount() {
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 16_500, remainingBytes: 500_000, firstStall: false) == 2)
    }

    @Test func slowLinkBuffersWhatTheRestLacks() {
        // 0.9× with 144 000 bytes left: they arrive in 10 s and play in 9 s, so 1 s is missing.
        let seconds = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: 144_000, firstStall: false)
        #expect(abs(seconds - (1 + RefillPolicy.margin)) < 1e-9)
        // Near the end little is missing: a shorter stall than the standard refill.
        let nearEnd = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: 14_400, firstStall: false)
        #expect(nearEnd < 2)
        // A live stream (no length) cannot be planned for.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: nil, firstStall: false) == 2)
    }

    @Test func firstStallBeforeTheSpeedIsKnownRefillsTwiceThePrebuffer() {
        // The start had 0.1 s; a link paced in small chunks can leave a gap that long between its
        // first two: the next chunk ends the stall, not a second of refill.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: nil, remainingBytes: 100_000,
                                     firstStall: true) == 0.2)
        // A second stall before the measure refills the standard amount.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: nil, remainingBytes: 100_000,
                                     firstStall: false) == 2)
        // Once the speed is known, it decides, first stall or not.
        let slow = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: 144_000,
                                        firstStall: true)
        #expect(abs(slow - (1 + RefillPolicy.margin)) < 1e-9)
        // A link measured about as fast as the stream is not given the benefit of the doubt.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 16_500, remainingBytes: 500_000,
                                     firstStall: true) == 2)
    }

    @Test func firstStallRefillIsNeverMoreThanTheStandardOne() {
        let long = RefillPolicy(standardRefill: 1, prebuffer: 3)
        #expect(long.firstStallRefill == 1)
        #expect(long.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: nil, remainingBytes: nil, firstStall: true) == 1)
        // No prebuffer still refills a tenth of a second, not nothing.
        #expect(RefillPolicy(standardRefill: 2, prebuffer: 0).firstStallRefill == 0.1)
    }

    @Test func refillBytesAreCappedAtThreeQuartersOfTheRing() {
        #expect(RefillPolicy.refillBytes(seconds: 2, bytesPerSecond: 16_000, ringCapacity: 1 << 20) == 32_000)
        #expect(RefillPolicy.refillBytes(seconds: 2, bytesPerSecond: 16_000, ringCapacity: 40_000) == 30_000)
        // A refill the ring could never hold, or a shortfall too big to count in bytes, waits
        // for the cap, without trapping.
        #expect(RefillPolicy.refillBytes(seconds: 1e30, bytesPerSecond: 16_000, ringCapacity: 1 << 20) == 786_432)
        #expect(RefillPolicy.refillBytes(seconds: .infinity, bytesPerSecond: 16_000, ringCapacity: 1 << 20) == 786_432)
        #expect(RefillPolicy.refillBytes(seconds: .nan, bytesPerSecond: 16_000, ringCapacity: 1 << 20) == 786_432)
        #expect(RefillPolicy.refillBytes(seconds: -.infinity, bytesPerSecond: 16_000, ringCapacity: 1 << 20) == 0)
        // Whole bytes, rounded down.
        #expect(RefillPolicy.refillBytes(seconds: 0.1, bytesPerSecond: 16_005, ringCapacity: 1 << 20) == 1600)
    }

    @Test func aLengthNearIntMaxOnASlowLinkRefillsTheCap() {
        // Some servers give a live stream a length of 2^63 - 1: the rest's shortfall on a link
        // at a quarter of the stream's rate is then more bytes than an Int counts.
        let seconds = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: bitrate / 4,
                                           remainingBytes: .max, firstStall: false)
        #expect(seconds * bitrate > Double(Int.max))
        #expect(RefillPolicy.refillBytes(seconds: seconds, bytesPerSecond: Int(bitrate), ringCapacity: 1 << 20) == 786_432)
    }
}
