import Testing
@testable import StreamPlay

/// How much a rebuffer refills, from the link's measured speed.
@Suite struct RefillPolicyTests {
    let policy = RefillPolicy(standardRefill: 2)
    let bitrate = 16_000.0  // 128 kbps

    @Test func unknownSpeedRefillsTheStandardAmount() {
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: nil, remainingBytes: 100_000) == 2)
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 0, remainingBytes: nil) == 2)
    }

    @Test func fastLinkRefillsBriefly() {
        // 1.5× the bitrate: the stall was a hiccup.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 24_000, remainingBytes: 500_000)
                    == RefillPolicy.hiccupRefill)
    }

    @Test func linkNearTheBitrateRefillsTheStandardAmount() {
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 16_500, remainingBytes: 500_000) == 2)
    }

    @Test func slowLinkBuffersWhatTheRestLacks() {
        // 0.9× with 144 000 bytes left: they arrive in 10 s and play in 9 s, so 1 s is missing.
        let seconds = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: 144_000)
        #expect(abs(seconds - (1 + RefillPolicy.margin)) < 1e-9)
        // Near the end little is missing: a shorter stall than the standard refill.
        let nearEnd = policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: 14_400)
        #expect(nearEnd < 2)
        // A live stream (no length) cannot be planned for.
        #expect(policy.refillSeconds(bytesPerSecond: bitrate, linkBytesPerSecond: 14_400, remainingBytes: nil) == 2)
    }
}
