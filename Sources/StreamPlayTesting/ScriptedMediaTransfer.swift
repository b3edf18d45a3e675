import StreamPlay
import Synchronization

/// One transfer of a ``ScriptedMediaServer``: its answer worked out in full when the request
/// arrives (a ``Plan``), then handed to the receiver from a thread of its own, pausing when the
/// receiver pauses and stopping when the input cancels.
final class ScriptedMediaTransfer: MediaTransferControl {
    /// What a transfer sends, and how it ends.
    struct Plan: Sendable {
        /// How the body's end is met.
        enum Ending: Sendable {
            /// The response is complete.
            case complete
            /// The connection breaks.
            case breaks
            /// Nothing more comes until the transfer is cancelled.
            case stalls
            /// The response was an error status (no body).
            case errorStatus
        }

        var head: MediaResponseHead
        var body: ArraySlice<UInt8>
        var ending: Ending

        /// An error status with no body.
        static func status(_ status: Int, retryAfter: Int?, headers: HTTPHeaders = [:]) -> Plan {
            var headers = headers
            if let retryAfter { headers.set("Retry-After", String(retryAfter)) }
            headers.set("Content-Length", "0")
            return Plan(head: MediaResponseHead(status: status, headers: headers), body: [], ending: .errorStatus)
        }

        /// The answer `answer` makes of `bytes` for `request`.
        init(answer: ScriptedMediaAnswer, to request: MediaRequest, bytes: [UInt8], contentType: String,
             acceptsRanges: Bool) {
            if case .status(let status, let retryAfter) = answer {
                self = .status(status, retryAfter: retryAfter)
                return
            }
            var claimedLength = bytes.count
            if case .lyingLength(let length) = answer { claimedLength = max(0, length) }
            let honoursRange = acceptsRanges && answer != .ignoringRange
            let ranged = honoursRange && request.rangeStart != nil
            var first = ranged ? max(0, request.rangeStart ?? 0) : 0
            if ranged && (first >= claimedLength || (request.rangeEnd ?? first) < first) {
                self = .status(416, retryAfter: nil, headers: ["Content-Range": "bytes */\(claimedLength)"])
                return
            }
            // The byte after the last one sent: the range's end, or the resource's.
            var stop = ranged ? min((request.rangeEnd ?? claimedLength - 1) + 1, claimedLength) : claimedLength
            if ranged, case .rangeAnswered(let bytes) = answer {
                first = min(max(0, bytes.lowerBound), claimedLength - 1)
                stop = min(max(bytes.upperBound + 1, first + 1), claimedLength)
            }
            if ranged, case .cappedRange(let bytes) = answer { stop = min(stop, first + max(1, bytes)) }
            var headers: HTTPHeaders = ["Content-Type": contentType, "Content-Length": String(stop - first)]
            if honoursRange { headers.set("Accept-Ranges", "bytes") }
            if ranged { headers.set("Content-Range", "bytes \(first)-\(stop - 1)/\(claimedLength)") }
            head = MediaResponseHead(status: ranged ? 206 : 200, headers: headers)

            var end = min(bytes.count, stop)
            ending = bytes.count < stop ? .breaks : .complete
            switch answer {
            case .cut(let offset) where offset < end:
                end = offset
                ending = .breaks
            case .stall(let offset) where offset < end:
                end = offset
                ending = .stalls
            default:
                break
            }
            body = bytes[min(first, max(end, 0))..<max(end, 0)]
        }

        private init(head: MediaResponseHead, body: ArraySlice<UInt8>, ending: Ending) {
            self.head = head
            self.body = body
            self.ending = ending
        }
    }

    private struct Flags {
        var cancelled = false
        var resumed = false
    }

    private let flags = Mutex(Flags())
    private let signal = ThreadSignal()

    private init() {}

    /// Starts sending `plan` to `receiver` on a thread of its own.
    /// - Parameter onStall: called when a stalling plan has handed its last byte.
    static func start(_ plan: Plan, receiver: any MediaTransferReceiver, chunkSize: Int,
                      onStall: @escaping @Sendable () -> Void) -> ScriptedMediaTransfer {
        let transfer = ScriptedMediaTransfer()
        let started = EngineThread.detached(name: "sp-scripted-media") {
            transfer.send(plan, to: receiver, chunkSize: chunkSize, onStall: onStall)
        }
        if !started {
            receiver.receiveEnd(.failed(MediaTransferFailure(kind: .other, reason: "no thread for the scripted transfer")))
        }
        return transfer
    }

    func resume() {
        flags.withEngineLock { $0.resumed = true }
        signal.signal()
    }

    func cancel() {
        flags.withEngineLock { $0.cancelled = true }
        signal.signal()
    }

    private func send(_ plan: Plan, to receiver: any MediaTransferReceiver, chunkSize: Int,
                      onStall: @Sendable () -> Void) {
        receiver.receiveHead(plan.head)
        var position = plan.body.startIndex
        while position < plan.body.endIndex {
            let chunk = plan.body[position..<min(position + chunkSize, plan.body.endIndex)]
            // Under the lock: once `cancel()` returns, no byte is handed any more.
            let answer = flags.withEngineLock { flags -> MediaBodyAnswer? in
                guard !flags.cancelled else { return nil }
                flags.resumed = false
                return chunk.withUnsafeBytes { receiver.receiveBody($0) }
            }
            switch answer {
            case nil:
                return receiver.receiveEnd(.cancelled)
            case .take:
                position = chunk.endIndex
            case .pause:
                waitUntil { $0.resumed || $0.cancelled }
            }
        }
        switch plan.ending {
        case .complete:
            receiver.receiveEnd(.completed)
        case .breaks:
            receiver.receiveEnd(.failed(MediaTransferFailure(kind: .connectionBroken, reason: "the script cut the connection")))
        case .stalls:
            onStall()
            waitUntil { $0.cancelled }
            receiver.receiveEnd(.cancelled)
        case .errorStatus:
            receiver.receiveEnd(.failed(MediaTransferFailure(kind: .httpStatus,
                                                             reason: "the script answered \(plan.head.status)")))
        }
    }

    private func waitUntil(_ condition: (Flags) -> Bool) {
        while !flags.withEngineLock({ condition($0) }) { signal.wait(timeout: 1) }
    }
}
