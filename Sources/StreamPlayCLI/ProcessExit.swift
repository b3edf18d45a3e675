import StreamPlay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One `exit` per process: glibc's `exit` is not safe to call from two threads at once (both
/// run the atexit handlers and destructors), and a Ctrl-C or SIGTERM handler's exit can meet the
/// exit of a command that the signal's stop let finish. The first caller exits; a later one
/// waits for that exit to end the process.
///
/// A signal handler claims its status (``claim(_:)``) before it stops the player: the command
/// that the stop lets finish then exits with the signal's status (130, 143), not with 0.
enum ProcessExit {
    private static let exiting = Atomic<Bool>(false)
    /// A status claimed ahead of the exit, or -1.
    private static let claimed = Atomic<Int32>(-1)

    /// Makes `status` the process's exit status, whoever exits first; the first claim wins.
    static func claim(_ status: Int32) {
        _ = claimed.compareExchange(expected: -1, desired: status, ordering: .sequentiallyConsistent)
    }

    /// Exits with the claimed status if there is one, with `status` otherwise.
    static func exit(_ status: Int32) -> Never {
        if exiting.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            let claimedStatus = claimed.load(ordering: .sequentiallyConsistent)
            // A load of libcurl under way must end, or none begin, before the exit handlers run.
            CurlRequest.finishLoading()
            Glibc.exit(claimedStatus >= 0 ? claimedStatus : status)
        }
        while true { pause() }
    }
}
