import Testing
@testable import StreamPlay

/// The open's deadline counts the sound server's silence, not the open's length: an answer to
/// any stream of the connection starts the count again.
@Suite("Sound server open deadline")
struct PulseAudioOpenDeadlineTests {
    @Test("with no answer since the open, the deadline is the allowed time after the open")
    func silentSinceOpen() {
        #expect(PulseAudioOpenDeadline.due(openedAt: 5_000_000, lastAnswer: 0, allowed: 10_000_000) == 15_000_000)
        // An answer from before the open does not shorten it.
        #expect(PulseAudioOpenDeadline.due(openedAt: 5_000_000, lastAnswer: 4_999_999, allowed: 10_000_000) == 15_000_000)
    }

    @Test("an answer after the open moves the deadline to the allowed time after that answer")
    func answerMovesItOn() {
        #expect(PulseAudioOpenDeadline.due(openedAt: 5_000_000, lastAnswer: 12_000_000, allowed: 10_000_000) == 22_000_000)
    }
}
