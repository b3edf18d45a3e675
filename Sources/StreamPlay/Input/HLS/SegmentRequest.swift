/// One HTTP request for a segment, or the rest of one, run to its end for the HLS input thread.
///
/// The request runs on the configuration's transport (libcurl's loop, or the caller's own), and
/// the input thread waits for it in ``perform()`` (``BlockingMediaTransfer``): the thread has
/// nothing else to drive while a segment arrives, and it may wait for ring space in its body
/// handler. A command (stop, seek), a stall on the player's clock or the end of a byte range
/// ends the request early.
final class SegmentRequest {
    private let url: String
    /// First byte asked for, and the last (a byte-range segment), in the resource.
    private let start: Int
    private let end: Int?
    private let configuration: PlayerConfiguration
    private let wakeUp: WakeUpSignal
    /// Takes body bytes of the segment; `false` ends the request (a command came).
    private let onBody: (UnsafeRawBufferPointer) -> Bool
    /// Looked at whenever `wakeUp` is signalled: `true` ends the request.
    private let shouldAbort: () -> Bool
    private var sawBody = false
    /// Bytes to drop: the server ignored the Range and sent the resource from its start.
    private var prefixToSkip = 0
    /// Bytes the request still wants, for a byte-range segment.
    private var remaining: Int?
    /// Set when the segment's byte range arrived whole before the response ended (a server
    /// that ignored the Range sends more).
    private var rangeComplete = false

    /// How a request ended.
    enum Ending {
        /// Every byte asked for arrived.
        case complete
        /// A command came (or `onBody` refused bytes): the caller looks at its commands.
        case command
        /// It failed: what recovery makes of it, and the error the listener hears if recovery
        /// gives up.
        case failed(TransferEnd.Failure, PlayerError)
    }

    /// Body bytes of the segment delivered (skipped prefix not counted).
    private(set) var delivered = 0

    /// - Parameter wakeUp: what the input thread sleeps on; its commands signal it.
    init(url: String, start: Int, end: Int?, configuration: PlayerConfiguration, wakeUp: WakeUpSignal,
         onBody: @escaping (UnsafeRawBufferPointer) -> Bool, shouldAbort: @escaping () -> Bool) {
        self.url = url
        self.start = start
        self.end = end
        self.configuration = configuration
        self.wakeUp = wakeUp
        self.onBody = onBody
        self.shouldAbort = shouldAbort
        if let end { remaining = end - start + 1 }
    }

    /// Runs the request.
    func perform() -> Ending {
        var request = configuration.mediaRequest(url)
        if start > 0 || end != nil {
            request.rangeStart = start
            request.rangeEnd = end
        }
        let limits = BlockingMediaTransfer.Limits(stallTimeout: configuration.stallTimeout)
        let (outcome, _) = BlockingMediaTransfer.perform(
            request, on: configuration.transport, clock: configuration.clock, wakeUp: wakeUp, limits: limits,
            shouldStop: shouldAbort
        ) { bytes, status in
            receive(bytes, status: status)
        }
        if rangeComplete { return .complete }
        switch outcome.interruption {
        case .stopped?, .refused?:
            return .command
        case .stalled?, .timedOut?, nil:
            guard let failure = outcome.recoveryFailure,
                  let error = outcome.error(url: url, limits: limits, connectTimeout: configuration.connectTimeout)
            else { return .complete }
            return .failed(failure, error)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, status: Int) -> Bool {
        if !sawBody {
            sawBody = true
            if start > 0 && status == 200 { prefixToSkip = start }
        }
        var body = bytes
        if prefixToSkip > 0 {
            let skipped = min(prefixToSkip, body.count)
            prefixToSkip -= skipped
            body = UnsafeRawBufferPointer(rebasing: body[skipped...])
        }
        if let left = remaining, body.count > left {
            body = UnsafeRawBufferPointer(rebasing: body[..<left])
        }
        if !body.isEmpty {
            guard onBody(body) else { return false }
            delivered += body.count
            remaining? -= body.count
        }
        if remaining == 0 {
            // A server that ignored the Range sends more than the segment: enough.
            rangeComplete = true
            return false
        }
        return true
    }
}
