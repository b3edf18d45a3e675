import Foundation

/// Busy child processes that keep every core of the machine loaded while a test runs, as other
/// players and encoders do on a listener's machine: races between the engine's threads that a
/// quiet machine hides show then.
///
/// Each child is a shell spinning in an empty loop; ``stop()`` (or the end of the value) kills
/// them by their own process ids.
final class CPULoad {
    private var children: [Process] = []

    /// Starts `count` busy children: one more than the machine has cores, by default.
    init(children count: Int = ProcessInfo.processInfo.activeProcessorCount + 1) throws {
        for _ in 0..<count {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            child.arguments = ["-c", "while :; do :; done"]
            try child.run()
            children.append(child)
        }
    }

    /// Ends the children and waits for them.
    func stop() {
        for child in children where child.isRunning {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        children = []
    }

    deinit { stop() }
}
