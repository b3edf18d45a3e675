import Dispatch
import FoundationEssentials
import StreamPlay
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and termination: stop the player, give the terminal back, exit 130.
enum SignalHandling {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install(player: Player, keys: KeyReader?) {
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
}
