import Foundation

/// Polls a condition without allocating, so the waits do not count in the malloc metrics.
enum PlayerWaiting {
    static func spin(timeout: Double, until condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { throw BenchFailure("timed out after \(timeout) s") }
            usleep(200)
        }
    }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
