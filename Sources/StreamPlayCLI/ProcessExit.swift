import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One `exit` per process: glibc's `exit` is not safe to call from two threads at once (both
/// run the atexit handlers and destructors), and a Ctrl-C or SIGTERM handler's exit can meet the
/// exit of a command that the signal's stop let finish. The first caller exits; a later one
/// waits for that exit to end the process.
enum ProcessExit {
    private static let exiting = Atomic<Bool>(false)

    static func exit(_ status: Int32) -> Never {
        if exiting.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            Glibc.exit(status)
        }
        while true { pause() }
    }
}
