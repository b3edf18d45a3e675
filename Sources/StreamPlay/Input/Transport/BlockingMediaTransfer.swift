import Synchronization

/// One request on a ``MediaTransport`` for a caller that lives on an engine thread of its own
/// and waits for the answer: a playlist, a key, an init segment, an HLS segment, a tag's bytes.
///
/// A transport's thread must never block, and what the caller does with the bytes may (an HLS
/// input waits for room in its ring, decrypts, filters). So the transport's thread only copies
/// body bytes into a small buffer here, pausing the transfer while the buffer is full; the
/// caller's thread takes them out in ``perform(_:on:clock:wakeUp:limits:shouldStop:onBody:)``
/// and resumes the transfer. Stops, stalls and the request's time limit are checked on the
/// caller's thread, on the player's ``PlaybackClock``, and end the transfer by cancelling it.
///
/// Every waited-for request of the engine runs here, on libcurl's loop
/// (``CurlMediaTransport``) or on the caller's own transport
/// (``PlayerConfiguration/mediaTransport``): tests of HLS and playlists then need no network,
/// and their timeouts follow a manual clock.
final class BlockingMediaTransfer: MediaTransferReceiver, @unchecked Sendable {
    /// Why a request ended before its transport finished it, if it did.
    enum Interruption: Equatable, Sendable {
        /// `shouldStop` said so.
        case stopped
        /// No byte came for the stall timeout.
        case stalled
        /// The whole request took longer than its time limit.
        case timedOut
        /// `onBody` refused bytes, or the body went over the request's byte limit.
        case refused
    }

    /// How long a request may take and how much it may bring; `nil` leaves each unbounded.
    struct Limits: Sendable {
        /// Seconds without a byte after which the request ends as ``Interruption/stalled``.
        var stallTimeout: Double?
        /// Seconds the whole request may take (``Interruption/timedOut``).
        var timeout: Double?
        /// The most body bytes the request may bring (``Interruption/refused``): a server that
        /// ignores a Range request and sends a whole file, a playlist that is not one.
        var byteLimit: Int?
    }

    /// How a request ended.
    struct Outcome: Sendable, Equatable {
        /// The transport's end; ``MediaTransferEnd/cancelled`` when the caller's side ended it.
        var end: MediaTransferEnd
        /// Set when the caller's side ended it.
        var interruption: Interruption?
        /// The response's status (0 when none came).
        var status: Int
        /// Body bytes handed to `onBody`.
        var received: Int
    }

    /// Body bytes buffered beyond which the transfer pauses until the caller catches up.
    static let bufferLimit = 256 * 1024

    /// What the transport's thread hands the caller's thread, under `state`'s lock: the
    /// transport appends and ends, the caller empties.
    private struct State {
        var status = 0
        /// Body chunks not yet taken.
        var chunks: [[UInt8]] = []
        /// Bytes in `chunks`, against ``bufferLimit``.
        var buffered = 0
        /// Set when the transfer was paused for lack of room; the caller resumes it once it
        /// has emptied `chunks`.
        var paused = false
        var end: MediaTransferEnd?
        /// How many times the transfer paused for room, for the tests.
        var pauses = 0
        /// Body bytes taken so far, against the byte limit.
        var taken = 0
        /// Set when the body went over the byte limit: the caller cancels.
        var overLimit = false
        /// When body bytes last came, on the caller's clock: the stall timeout counts from
        /// their arrival, not from when the caller got round to them (unless it was busy
        /// with earlier bytes while the clock moved).
        var lastArrival: Duration?
    }

    private let state = Mutex(State())
    private let byteLimit: Int?
    private let clock: any PlaybackClock
    /// The caller's wake-up: signalled by the transport's thread with news, and by whoever
    /// commands the caller's thread (a stop, a seek).
    private let wakeUp: WakeUpSignal

    private init(byteLimit: Int?, clock: any PlaybackClock, wakeUp: WakeUpSignal) {
        self.byteLimit = byteLimit
        self.clock = clock
        self.wakeUp = wakeUp
    }

    /// Runs `request` on `transport` to its end, handing body bytes to `onBody` on this thread.
    /// - Parameters:
    ///   - clock: the time of the stall timeout and the time limit.
    ///   - wakeUp: what this thread sleeps on between looks at the transfer; the transfer's news
    ///     signals it, and whoever makes `shouldStop` true must signal it too (the thread
    ///     otherwise looks only at its deadlines, or once a second without one).
    ///   - limits: the stall timeout, the time limit, the byte limit.
    ///   - shouldStop: looked at on every wake-up; `true` ends the request.
    ///   - onBody: takes body bytes, with the response's status; `false` ends the request
    ///     (nothing more is handed over).
    /// - Returns: how the request ended, and (for the tests) how often it paused for room.
    static func perform(_ request: MediaRequest, on transport: any MediaTransport, clock: any PlaybackClock,
                        wakeUp: WakeUpSignal = WakeUpSignal(), limits: Limits = Limits(), shouldStop: () -> Bool,
                        onBody: (UnsafeRawBufferPointer, _ status: Int) -> Bool) -> (outcome: Outcome, pauses: Int) {
        let transfer = BlockingMediaTransfer(byteLimit: limits.byteLimit, clock: clock, wakeUp: wakeUp)
        // Timed from before the request, so that nobody who sees it can move the clock first.
        let started = clock.now
        let control = transport.startTransfer(request, receiver: transfer)
        let outcome = transfer.wait(control: control, clock: clock, started: started, limits: limits,
                                    shouldStop: shouldStop, onBody: onBody)
        return (outcome, transfer.state.withEngineLock { $0.pauses })
    }

    /// The caller's side of ``perform(_:on:clock:wakeUp:limits:shouldStop:onBody:)``.
    private func wait(control: any MediaTransferControl, clock: any PlaybackClock, started: Duration, limits: Limits,
                      shouldStop: () -> Bool, onBody: (UnsafeRawBufferPointer, Int) -> Bool) -> Outcome {
        var interruption: Interruption?
        var received = 0
        // When the caller last came back from a busy spell in `onBody` during which the clock
        // moved (an HLS input waits there for room in its ring, as long as the listener
        // pauses): the stall timeout counts only time spent waiting for bytes.
        var busyUntil = started
        func interrupt(_ cause: Interruption) {
            interruption = cause
            control.cancel()
        }
        while true {
            let (status, chunks, paused, end, overLimit, lastArrival) = state.withEngineLock { state in
                defer {
                    state.chunks = []
                    state.buffered = 0
                    state.paused = false
                }
                return (state.status, state.chunks, state.paused, state.end, state.overLimit, state.lastArrival)
            }
            let tookChunks = interruption == nil && !chunks.isEmpty
            if tookChunks {
                let before = clock.now
                for chunk in chunks {
                    guard chunk.withUnsafeBytes({ onBody($0, status) }) else {
                        interrupt(.refused)
                        break
                    }
                    received += chunk.count
                }
                let after = clock.now
                if after > before { busyUntil = after }
            }
            if interruption == nil && overLimit { interrupt(.refused) }
            if let end {
                if let interruption {
                    return Outcome(end: .cancelled, interruption: interruption, status: status, received: received)
                }
                return Outcome(end: end, interruption: end == .cancelled ? .stopped : nil, status: status,
                               received: received)
            }
            // The instants at which the request gives up, on `clock`: a look at them is due
            // then, whatever else wakes this thread.
            let stallDeadline = limits.stallTimeout.map { max(busyUntil, lastArrival ?? started) + Self.duration($0) }
            let timeLimit = limits.timeout.map { started + Self.duration($0) }
            let now = clock.now
            if interruption == nil {
                if shouldStop() {
                    interrupt(.stopped)
                } else if let stallDeadline, now >= stallDeadline {
                    interrupt(.stalled)
                } else if let timeLimit, now >= timeLimit {
                    interrupt(.timedOut)
                } else if paused {
                    control.resume()
                }
            }
            // `onBody` may have slept on the caller's wake-up and used up the signals of the
            // news that came meanwhile: look again before sleeping.
            if tookChunks && interruption == nil { continue }
            // News of the transfer and commands signal `wakeUp`; otherwise the thread sleeps
            // until the next instant at which it gives up, met to the instant (a manual
            // clock's too), or for a second when it has none.
            var wakeAt: Duration?
            if interruption == nil {
                wakeAt = stallDeadline
                if let timeLimit { wakeAt = min(wakeAt ?? timeLimit, timeLimit) }
            }
            clock.sleep(until: wakeAt ?? now + .seconds(1), wakeUp: wakeUp)
        }
    }

    private static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    // MARK: MediaTransferReceiver (the transport's thread)

    func receiveHead(_ head: MediaResponseHead) {
        state.withEngineLock { $0.status = head.status }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> MediaBodyAnswer {
        let now = clock.now
        let answer = state.withEngineLock { state -> MediaBodyAnswer in
            if let byteLimit, state.taken + bytes.count > byteLimit {
                // Cut off at the chunk that crosses the limit: the caller cancels.
                state.overLimit = true
                return .pause
            }
            if state.buffered > 0 && state.buffered + bytes.count > Self.bufferLimit {
                state.paused = true
                state.pauses += 1
                return .pause
            }
            state.chunks.append([UInt8](bytes))
            state.buffered += bytes.count
            state.taken += bytes.count
            state.lastArrival = now
            return .take
        }
        wakeUp.signal()
        return answer
    }

    func receiveEnd(_ end: MediaTransferEnd) {
        state.withEngineLock { $0.end = end }
        wakeUp.signal()
    }
}

extension BlockingMediaTransfer.Outcome {
    /// What recovery makes of the request's end (``ReconnectPlanner``): `nil` when it
    /// completed, or when the caller's side ended it for a reason of its own.
    var recoveryFailure: TransferEnd.Failure? {
        switch interruption {
        case .stalled?, .timedOut?: return .stalled
        case .stopped?, .refused?: return nil
        case nil: break
        }
        guard case .failed(let failure) = end else { return nil }
        return TransferEnd.Failure(kind: failure.kind, status: status)
    }

    /// The typed error for a request for `url` that did not complete, or `nil` when it did.
    /// A refused body is the caller's to name: it knows why it refused.
    func error(url: String, limits: BlockingMediaTransfer.Limits, connectTimeout: Double) -> PlayerError? {
        let redacted = RedactedURL.describe(url)
        switch interruption {
        case .stalled?: return .timedOut(url: redacted, seconds: limits.stallTimeout ?? 0)
        case .timedOut?: return .timedOut(url: redacted, seconds: limits.timeout ?? 0)
        case .stopped?: return .transferFailed(url: redacted, reason: "stopped")
        case .refused?: return .transferFailed(url: redacted, reason: "the response was refused")
        case nil: break
        }
        switch end {
        case .completed:
            return nil
        case .cancelled:
            return .transferFailed(url: redacted, reason: "cancelled")
        case .failed(let failure):
            return CurlRequest.error(for: failure, status: status, url: url, received: received,
                                     connectTimeout: connectTimeout)
        }
    }
}

extension PlayerConfiguration {
    /// Where the engine's requests for media run: the caller's
    /// ``PlayerConfiguration/mediaTransport``, or libcurl's loop.
    var transport: any MediaTransport {
        mediaTransport ?? CurlMediaTransport(configuration: self)
    }

    /// A request for `url` with the configured request headers (a playlist, key or segment
    /// behind authorization needs the same ones as the stream).
    func mediaRequest(_ url: String, range: ClosedRange<Int>? = nil, from start: Int? = nil) -> MediaRequest {
        var request = MediaRequest(url: url, headers: HTTPHeaders(
            requestHeaders.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }))
        request.rangeStart = range?.lowerBound ?? start
        request.rangeEnd = range?.upperBound
        return request
    }
}
