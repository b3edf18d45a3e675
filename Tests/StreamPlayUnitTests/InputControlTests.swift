#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import StreamPlay

@Suite("InputControl")
struct InputControlTests {
    /// The decoder thread gives restarts one after another, each once the input thread took the
    /// one before; the input thread takes each as it would on its first turn (nothing seen yet).
    /// Whenever it takes one, no command is newer, so `hasCommands(since:)` must say none: a
    /// restart taken under the version before it was seen again as a new command, and the HLS
    /// input read a segment, and played it, twice.
    @Test("a restart the input thread took is never seen again as a newer command, however the threads interleave")
    func restartTakenOnce() {
        let control = InputControl(notifyDecoder: {})
        let rounds = 20_000
        let taken = Atomic<Int>(0)
        let seenAgain = Atomic<Int>(0)
        let input = EngineThread(name: "sp-test-input") {
            while taken.load(ordering: .acquiring) < rounds {
                var seen = -1
                guard let restart = control.takeCommands(since: &seen).restart else { continue }
                if control.hasCommands(since: seen) { seenAgain.add(1, ordering: .relaxed) }
                taken.store(restart.generation, ordering: .releasing)
            }
        }
        for round in 1...rounds {
            control.requestRestart(.init(offset: 0, generation: round))
            while taken.load(ordering: .acquiring) < round { sched_yield() }
        }
        input.join()
        #expect(seenAgain.load(ordering: .relaxed) == 0, "restarts seen again as newer commands")
    }

    @Test("a stop is taken with the version it came with, and nothing is pending after it")
    func stopTaken() {
        let control = InputControl(notifyDecoder: {})
        var seen = -1
        let none = control.takeCommands(since: &seen)
        #expect(!none.stop && none.restart == nil)
        #expect(!control.hasCommands(since: seen))
        control.requestStop()
        #expect(control.hasCommands(since: seen))
        let commands = control.takeCommands(since: &seen)
        #expect(commands.stop && commands.restart == nil)
        #expect(!control.hasCommands(since: seen))
    }
}
