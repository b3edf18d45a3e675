import Dispatch
import FoundationEssentials
import StreamPlay
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and termination: stop the player, give the terminal back, exit 130 (143 for SIGTERM).
/// With keys read from the terminal, job control too, as a full-screen program does it:
/// Ctrl-Z gives the terminal's settings back before the process stops, `fg` takes key mode
/// again, and in the background (after `bg`) a read of the terminal fails instead of stopping
/// the player (SIGTTIN ignored), so that it plays on while the key reader waits.
enum SignalHandling {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install(player: Player, keys: KeyReader?) {
        if keys != nil { installJobControl() }
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                // Claimed first: the stop below lets the command finish and exit on its own.
                ProcessExit.claim(128 + signalNumber)
                keys?.stop()
                player.stop()
                if Terminal.isInteractive { StandardStream.output("\n") }
                ProcessExit.exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    private static func installJobControl() {
        signal(SIGTTIN, SIG_IGN)
        signal(SIGTSTP, SIG_IGN)
        let suspend = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .global())
        suspend.setEventHandler {
            Terminal.restore()
            // The stop SIGTSTP's default action would have made, now that the terminal is back.
            kill(getpid(), SIGSTOP)
        }
        let resume = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
        resume.setEventHandler { Terminal.reapplyKeyMode() }
        for source in [suspend, resume] {
            source.resume()
            sources.append(source)
        }
    }
}
