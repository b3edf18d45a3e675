import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reads an HTTP or HTTPS resource into the ring: its transfers run on a ``MediaTransport``
/// (the ``CurlLoop`` unless the configuration gives another), and a thread of its own decides
/// what to request and when.
///
/// The transport's thread writes the body into the ring and pauses the transfer when the ring
/// is full (it never waits). This input's thread sleeps on a signal that commands, the transfer
/// (paused, ended) and the decoder (room in the ring) give; it resumes a paused transfer through
/// the transport, notices stalls, and runs the ``ReconnectPlanner`` after a transfer ends: the
/// waits of recovery (backoff, a URL refresh) hold up no other transfer.
///
/// The stall timeout, the backoff and Retry-After are measured on the configuration's
/// ``PlaybackClock``, and the thread sleeps through ``PlaybackClock/sleep(until:wakeUp:)``: a
/// manual clock that a test advances wakes it.
final class CurlInputSource: InputSource, @unchecked Sendable {
    let control: InputControl
    private let url: String
    /// The URL requests go to: `url`, or a fresh one from the refresher after an expiry.
    private var currentURL: String
    private let urlRefresher: URLRefresher?
    private let onMetadata: @Sendable (StreamMetadata) -> Void
    private let onReconnect: @Sendable () -> Void
    /// Whether the resource turned out to be a live stream (no length, no ranges), as the last
    /// transfer that delivered audio said. Input thread only.
    private var liveStream = false
    /// Whether any transfer of this input delivered bytes (input thread): failures after that
    /// are drops to recover from.
    private var hasDelivered = false
    private let ring: ByteRing
    private let configuration: PlayerConfiguration
    private let transport: any MediaTransport
    /// What the input thread sleeps on: commands, the transfer, the ring's room wake it.
    private let wake = ThreadSignal()
    /// `wake`, as the clock is given it to sleep on (and to signal when it moves).
    private let wakeUp: WakeUpSignal
    /// The time of the stall timeout, the backoff and Retry-After.
    private let clock: any PlaybackClock
    private var thread: EngineThread?

    init(url: String, ring: ByteRing, control: InputControl, configuration: PlayerConfiguration,
         urlRefresher: URLRefresher? = nil,
         onReconnect: @escaping @Sendable () -> Void = {},
         onMetadata: @escaping @Sendable (StreamMetadata) -> Void = { _ in }) {
        self.onReconnect = onReconnect
        self.onMetadata = onMetadata
        self.url = url
        self.currentURL = url
        self.urlRefresher = urlRefresher
        self.ring = ring
        self.control = control
        self.configuration = configuration
        self.clock = configuration.clock
        self.wakeUp = WakeUpSignal(wake)
        self.transport = configuration.mediaTransport ?? CurlMediaTransport(configuration: configuration)
        ring.setProducerWaker { [wake] in wake.signal() }
        thread = EngineThread(name: "sp-http-input") { [self] in run() }
    }

    func start(at offset: Int, generation: Int) {
        control.requestRestart(.init(offset: offset, generation: generation))
        wake.signal()
    }

    func stop() {
        control.requestStop()
        wake.signal()
        thread?.join()
        ring.setProducerWaker(nil)
    }

    private var redactedURL: String { RedactedURL.describe(url) }

    /// A request to make once its time has come: a restart, or a reconnect after a drop.
    private struct PlannedRequest {
        var offset: Int
        var generation: Int
        /// On ``clock``.
        var notBefore: Duration
        /// `false` when reconnecting to a live stream, which has no byte positions to resume at.
        var requestRange = true
        /// A reconnect after a drop: failures to connect are then retried too (a server restarting).
        var isReconnect = false
    }

    /// The transfer under way, and its handle on the transport.
    private struct Running {
        let transfer: HTTPInputTransfer
        let control: any MediaTransferControl
    }

    private func run() {
        var running: Running?
        var planned: PlannedRequest?
        var planner = ReconnectPlanner(policy: configuration.reconnect, canRenewURL: urlRefresher != nil)
        var lastProgress = clock.now
        var lastDelivered = 0

        // Cancels the transfer and waits until the transport has let go of it: from then on
        // this thread alone touches the ring's producer side and the transfer's head. A
        // restart's cancel and add are therefore not handed to the loop as one batch: that
        // would save one wake-up of this thread (a hand-over between threads, a small share of
        // a seek's time), at the price of the old transfer's callbacks and this thread's new
        // generation sharing the ring's producer side.
        func remove(_ current: Running?) {
            guard let current else { return }
            if current.transfer.end == nil { current.control.cancel() }
            var waited = false
            while current.transfer.end == nil {
                wake.wait(timeout: 0.05)
                waited = true
            }
            // A wait returns having reset the signal, which a command (start, stop) may have
            // given meanwhile: give it again, so that the next wait does not sleep through it.
            if waited { wake.signal() }
            running = nil
        }

        var seenCommands = -1
        while true {
            let taken = seenCommands
            let commands = control.takeCommands(since: &seenCommands)
            if commands.stop { break }
            if seenCommands != taken, commands.restart == nil, let current = running,
               current.transfer.commandsTaken(upTo: seenCommands) {
                // It paused for a command that asked nothing of it after all: it goes on.
                current.control.resume()
            }
            if let restart = commands.restart {
                remove(running)
                ring.beginGeneration(restart.generation)
                planned = PlannedRequest(offset: restart.offset, generation: restart.generation, notBefore: clock.now)
                planner.reset()
            }
            if let request = planned, request.notBefore <= clock.now {
                planned = nil
                let next = HTTPInputTransfer(url: currentURL, offset: request.offset, generation: request.generation,
                                             ring: ring, configuration: configuration,
                                             requestRange: request.requestRange, wake: wake)
                next.onFirstBody = { [control] transfer in
                    transfer.infoPublished = true
                    control.publish(info: transfer.info)
                }
                next.isReconnect = request.isReconnect
                // Every command after those taken is for this thread to carry out first.
                _ = next.commandsTaken(upTo: seenCommands)
                next.commandWaiting = { [control] seen in control.hasCommands(since: seen) }
                running = Running(transfer: next, control: transport.startTransfer(next.request, receiver: next))
                lastProgress = clock.now
                lastDelivered = 0
            }

            // Titles found on the transport thread are reported from here.
            if let current = running {
                for metadata in current.transfer.takeMetadata() { onMetadata(metadata) }
            }

            if let current = running, current.transfer.takeResumption() {
                current.control.resume()
                lastProgress = clock.now
            }

            var ended: (HTTPInputTransfer, TransferEnd)?
            if let current = running, let end = current.transfer.end, end != .cancelled {
                remove(current)
                ended = (current.transfer, transferEnd(for: end, transfer: current.transfer))
            }

            // A transfer that wants bytes but gets none for too long has stalled: a drop.
            var timeout = Duration.milliseconds(250)
            if ended == nil, let current = running {
                let transfer = current.transfer
                if transfer.pausedChunk > 0 {
                    lastProgress = clock.now
                    timeout = ring.announceProducerWaiting(for: transfer.pausedChunk) ? .zero : .seconds(1)
                } else if transfer.misplacedRange != nil {
                    remove(current)
                    ended = (transfer, transferEnd(for: .completed, transfer: transfer))
                } else if transfer.delivered != lastDelivered {
                    lastDelivered = transfer.delivered
                    lastProgress = clock.now
                } else if clock.now - lastProgress > .seconds(configuration.stallTimeout) {
                    remove(current)
                    let error = PlayerError.timedOut(url: redactedURL, seconds: configuration.stallTimeout)
                    ended = (transfer, transferEnd(.stalled, error: error, transfer: transfer))
                }
            }

            if let (transfer, end) = ended {
                for metadata in transfer.takeMetadata() { onMetadata(metadata) }
                planned = carryOut(planner.plan(after: end), after: end, of: transfer, retries: planner.retries,
                                   seenCommands: seenCommands)
                continue
            }

            let now = clock.now
            var deadline = now + timeout
            if running == nil {
                deadline = planned?.notBefore ?? now + .seconds(1)
            }
            // A command that came since the top of this turn is carried out now, whether or not
            // its signal was consumed by a wait above (`remove`).
            if timeout > .zero && !control.hasCommands(since: seenCommands) {
                clock.sleep(until: deadline, wakeUp: wakeUp)
            }
        }
        remove(running)
    }

    /// Carries out the planner's decision after a transfer ended: the next request, or `nil`
    /// when the generation is over (finished or failed, which this reports).
    /// - Parameter seenCommands: the commands taken so far; a newer one (a seek's restart)
    ///   ends the wait for a fresh URL, and the generation it was for.
    private func carryOut(_ decision: ReconnectPlanner.Decision, after end: TransferEnd,
                          of transfer: HTTPInputTransfer, retries: Int, seenCommands: Int) -> PlannedRequest? {
        var delay = 0.0
        switch decision {
        case .finished:
            if !transfer.infoPublished { control.publish(info: transfer.info) }
            control.finish(generation: transfer.generation, with: .finished)
            return nil
        case .fail(let error):
            control.finish(generation: transfer.generation, with: .failed(error))
            return nil
        case .renewURL:
            guard let urlRefresher, let fresh = fetchFreshURL(urlRefresher, seenCommands: seenCommands) else {
                // A seek's restart ended the wait: its generation supersedes this one, whose
                // failure the decoder no longer looks at.
                control.finish(generation: transfer.generation, with: .failed(end.error ?? .connectionLost(url: redactedURL, reason: "expired")))
                return nil
            }
            currentURL = fresh
        case .retry(_, let seconds):
            delay = seconds
        }
        let request = PlannedRequest(offset: end.resumeOffset, generation: transfer.generation,
                                     notBefore: clock.now + .milliseconds(Int(delay * 1000)),
                                     requestRange: !(transfer.isReconnect ? liveStream : transfer.info.isEndless),
                                     isReconnect: true)
        if end.failure == nil {
            // A capped Range answer ended where it said: the rest follows, with no drop to count.
            configuration.logger.debug("continuing", metadata: ["url": "\(redactedURL)", "offset": "\(end.resumeOffset)"])
            return request
        }
        // Counted once its time is set: a test on a manual clock that sees the count finds the
        // retry's time fixed.
        onReconnect()
        configuration.logger.info("reconnecting", metadata: [
            "url": "\(redactedURL)", "offset": "\(end.resumeOffset)", "retry": "\(retries)",
            "cause": "\(end.error.map { "\($0)" } ?? "-")",
        ])
        return request
    }

    /// Asks the refresher for a new URL, blocking this input thread (never the task pool)
    /// until it answers, its timeout passes, or a command newer than `seenCommands` comes (a
    /// stop, or a seek's restart).
    private func fetchFreshURL(_ refresh: @escaping URLRefresher, seenCommands: Int) -> String? {
        BlockingURLRefresher(refresh: refresh, clock: clock).freshURL(
            replacing: currentURL, timeout: configuration.urlRefreshTimeout, wakeUp: wakeUp
        ) {
            control.hasCommands(since: seenCommands)
        }
    }

    /// How `transfer` ended, for the planner.
    private func transferEnd(for end: MediaTransferEnd, transfer: HTTPInputTransfer) -> TransferEnd {
        if let range = transfer.misplacedRange {
            // Whatever became of the transfer after: its bytes were not the ones asked for.
            let reason = "the server answered a Range request from byte \(transfer.offset) with bytes \(range.lowerBound)-\(range.upperBound)"
            return transferEnd(.permanent, error: .transferFailed(url: redactedURL, reason: reason), transfer: transfer)
        }
        if transfer.delivered > 0 {
            liveStream = transfer.info.isEndless
            hasDelivered = true
        }
        guard case .failed(let failure) = end else {
            // A radio server that closes the stream has not reached an end: a live stream has none.
            if transfer.metadataInterval != nil, transfer.info.isEndless, transfer.delivered > 0 {
                return transferEnd(.broken, error: .connectionLost(url: redactedURL, reason: "the server closed the stream"),
                                   transfer: transfer)
            }
            return .completed(offset: transfer.offset, delivered: transfer.delivered,
                              endsBeforeResource: transfer.endsBeforeResource)
        }
        return transferEnd(TransferEnd.Failure(kind: failure.kind, status: transfer.responseCode),
                           error: CurlRequest.error(for: failure, status: transfer.responseCode, url: currentURL,
                                                    received: transfer.delivered,
                                                    connectTimeout: configuration.connectTimeout),
                           transfer: transfer)
    }

    private func transferEnd(_ failure: TransferEnd.Failure, error: PlayerError, transfer: HTTPInputTransfer) -> TransferEnd {
        if transfer.delivered > 0 { hasDelivered = true }  // a stall ends no curl transfer
        return TransferEnd(failure: failure, error: error, offset: transfer.offset, delivered: transfer.delivered,
                           retryAfter: transfer.retryAfter, inputEstablished: hasDelivered)
    }
}
