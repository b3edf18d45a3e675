import Testing
@testable import StreamPlay

@Suite("Decode loop turns (which waiting work wins)")
struct DecodeTurnTests {
    /// Everything waiting at once: a stop, a seek with the format known, a pause on a file sink,
    /// the input's response, the ending and a refill.
    static let everything = DecodeTurn.Facts(
        stopRequested: true, pendingSeek: 42, formatKnown: true, pausedOnFasterThanRealTimeSink: true,
        inputInfoWaiting: true, ending: true, rebuffering: true)

    @Test("nothing waiting: decode")
    func nothingWaiting() {
        #expect(DecodeTurn.next(.init()) == .decode)
        #expect(DecodeTurn.next(.init(formatKnown: true)) == .decode)
    }

    @Test("each kind of work, taken away in turn, lets the next one win: stop, seek, pause, response, ending, refill")
    func order() {
        var facts = Self.everything
        var steps: [DecodeTurn.Step] = []
        for _ in 0..<7 {
            let step = DecodeTurn.next(facts)
            steps.append(step)
            switch step {
            case .stop: facts.stopRequested = false
            case .seek: facts.pendingSeek = nil
            case .waitWhilePaused: facts.pausedOnFasterThanRealTimeSink = false
            case .applyInputInfo: facts.inputInfoWaiting = false
            case .endTrack: facts.ending = false
            case .refill: facts.rebuffering = false
            case .decode: break
            }
        }
        #expect(steps == [.stop, .seek(to: 42), .waitWhilePaused, .applyInputInfo, .endTrack, .refill, .decode])
    }

    @Test("a seek waits for the format: until then the loop decodes to learn it, or does what else is waiting")
    func seekWaitsForTheFormat() {
        #expect(DecodeTurn.next(.init(pendingSeek: 10)) == .decode)
        #expect(DecodeTurn.next(.init(pendingSeek: 10, inputInfoWaiting: true)) == .applyInputInfo)
        #expect(DecodeTurn.next(.init(pendingSeek: 10, rebuffering: true)) == .refill)
        #expect(DecodeTurn.next(.init(pendingSeek: 10, formatKnown: true)) == .seek(to: 10))
    }

    @Test("a seek made while a file sink is paused lands before the wait; a stop ends a paused play")
    func pausedFileSink() {
        let paused = DecodeTurn.Facts(formatKnown: true, pausedOnFasterThanRealTimeSink: true, ending: true)
        #expect(DecodeTurn.next(paused) == .waitWhilePaused)
        var seeking = paused
        seeking.pendingSeek = 3
        #expect(DecodeTurn.next(seeking) == .seek(to: 3))
        var stopping = paused
        stopping.stopRequested = true
        #expect(DecodeTurn.next(stopping) == .stop)
    }

    @Test("an ending track is played out, not refilled: the refill waits for bytes that will not come")
    func endingBeforeRefill() {
        #expect(DecodeTurn.next(.init(formatKnown: true, ending: true, rebuffering: true)) == .endTrack)
    }
}
