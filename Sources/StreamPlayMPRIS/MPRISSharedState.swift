import CStreamPlayMPRISShim
import CSystemd
#if canImport(Glibc)
import Glibc
#endif
import StreamPlay
import Synchronization

/// What other threads hand the MPRIS bus thread: a stop request and the seeks to signal, under
/// a lock, and an eventfd that wakes it.
final class MPRISSharedState: Sendable {
    private struct Pending {
        var stopRequested = false
        var seeks: [Double] = []
    }

    private let pending = Mutex(Pending())
    /// The eventfd the bus thread polls besides the bus (closed at deinit).
    let wakeDescriptor: Int32

    init() throws(MPRISError) {
        let descriptor = sp_mpris_wake_fd_new()
        guard descriptor >= 0 else { throw MPRISError(.busFailure, "no eventfd") }
        wakeDescriptor = descriptor
    }

    deinit { close(wakeDescriptor) }

    var stopRequested: Bool { pending.withEngineLock { $0.stopRequested } }

    func requestStop() {
        pending.withEngineLock { $0.stopRequested = true }
        sp_mpris_wake(wakeDescriptor)
    }

    /// Notes what a player event means for MPRIS, and wakes the bus thread to publish it.
    func note(_ event: PlayerEvent) {
        if case .seeked(let seconds) = event { pending.withEngineLock { $0.seeks.append(seconds) } }
        sp_mpris_wake(wakeDescriptor)
    }

    func takeSeeks() -> [Double] {
        pending.withEngineLock { pending in
            defer { pending.seeks.removeAll() }
            return pending.seeks
        }
    }
}
