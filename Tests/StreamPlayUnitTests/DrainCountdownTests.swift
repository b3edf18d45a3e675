import Testing
@testable import StreamPlay

@Suite("Drain countdown")
struct DrainCountdownTests {
    @Test("counts down while running, holds while stopped, and stops at 0")
    func countdown() {
        let start = ContinuousClock.now
        var countdown = DrainCountdown(seconds: 0.5, running: true, at: start)
        #expect(abs(countdown.remainingSeconds(at: start + .milliseconds(200)) - 0.3) < 1e-9)
        countdown.setRunning(false, at: start + .milliseconds(200))
        #expect(abs(countdown.remainingSeconds(at: start + .seconds(5)) - 0.3) < 1e-9)
        countdown.setRunning(true, at: start + .seconds(5))
        #expect(abs(countdown.remainingSeconds(at: start + .milliseconds(5100)) - 0.2) < 1e-9)
        #expect(countdown.remainingSeconds(at: start + .seconds(6)) == 0)
    }

    @Test("made while corked, it waits for the uncork; a negative latency counts as none")
    func corkedAndNegative() {
        let start = ContinuousClock.now
        let corked = DrainCountdown(seconds: 1, running: false, at: start)
        #expect(corked.remainingSeconds(at: start + .seconds(3)) == 1)
        #expect(DrainCountdown(seconds: -0.2, running: true, at: start).remainingSeconds(at: start) == 0)
    }
}
