@testable import StreamPlay
import Testing

/// The `iTunSMPB` comment's hexadecimal fields.
@Suite struct ITunesGaplessInfoTests {
    @Test func readsPrimingPaddingAndLength() {
        let info = ITunesGaplessInfo(" 00000000 00000840 000001CA 00000000003F31F6 00000000 00000000 00000000 00000000")
        #expect(info == ITunesGaplessInfo(priming: 0x840, padding: 0x1CA, originalFrames: 0x3F31F6))
    }

    @Test func refusesWhatIsNotTheLayout() {
        #expect(ITunesGaplessInfo("") == nil)
        #expect(ITunesGaplessInfo(" 00000000 00000840 000001CA") == nil)
        #expect(ITunesGaplessInfo(" 00000000 00000840 000001CA 0000000000000000") == nil)
        #expect(ITunesGaplessInfo(" 00000000 0000084G 000001CA 00000000003F31F6") == nil)
        #expect(ITunesGaplessInfo(" 0 1 2 FFFFFFFFFFFFFFFFFF") == nil)
    }
}
