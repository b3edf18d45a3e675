import CCurl
import CStreamPlayShim
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reads an HTTP or HTTPS resource with libcurl on a dedicated thread into the ring.
///
/// The multi interface lets one thread both drive the transfer and react to commands: it sleeps
/// in `curl_multi_poll`, which `curl_multi_wakeup` (safe from any thread) interrupts. When the
/// ring is full the write callback pauses the transfer; the thread resumes it once the decoder
/// has made room, since `curl_easy_pause` must be called from the thread driving the transfer.
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
    private let multi: UnsafeMutableRawPointer
    private var thread: EngineThread?

    init(url: String, ring: ByteRing, control: InputControl, configuration: PlayerConfiguration,
         urlRefresher: URLRefresher? = nil,
         onReconnect: @escaping @Sendable () -> Void = {},
         onMetadata: @escaping @Sendable (StreamMetadata) -> Void = { _ in }) {
        self.onReconnect = onReconnect
        _ = CurlRequest.globalInit
        self.onMetadata = onMetadata
        self.url = url
        self.currentURL = url
        self.urlRefresher = urlRefresher
        self.ring = ring
        self.control = control
        self.configuration = configuration
        self.multi = curl_multi_init()!
        nonisolated(unsafe) let multi = self.multi
        ring.setProducerWaker { curl_multi_wakeup(multi) }
        thread = EngineThread(name: "sp-curl") { [self] in run() }
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    func start(at offset: Int, generation: Int) {
        control.requestRestart(.init(offset: offset, generation: generation))
        curl_multi_wakeup(multi)
    }

    func stop() {
        control.requestStop()
        curl_multi_wakeup(multi)
        thread?.join()
        ring.setProducerWaker(nil)
    }

    private var redactedURL: String { RedactedURL.describe(url) }

    /// A request to make once its time has come: a restart, or a reconnect after a drop.
    private struct PlannedRequest {
        var offset: Int
        var generation: Int
        var notBefore: ContinuousClock.Instant
        /// `false` when reconnecting to a live stream, which has no byte positions to resume at.
        var requestRange = true
        /// A reconnect after a drop: failures to connect are then retried too (a server restarting).
        var isReconnect = false
    }

    private func run() {
        var transfer: CurlTransfer?
        var planned: PlannedRequest?
        var planner = ReconnectPlanner(policy: configuration.reconnect, canRenewURL: urlRefresher != nil)
        var lastProgress = ContinuousClock.now
        var lastDelivered = 0

        func remove(_ current: CurlTransfer?) {
            guard let current else { return }
            curl_multi_remove_handle(multi, current.handle)
            transfer = nil
        }

        var seenCommands = -1
        while true {
            let commands = control.takeCommands(since: &seenCommands)
            if commands.stop { break }
            if let restart = commands.restart {
                remove(transfer)
                ring.beginGeneration(restart.generation)
                planned = PlannedRequest(offset: restart.offset, generation: restart.generation, notBefore: .now)
                planner.reset()
            }
            if let request = planned, request.notBefore <= .now {
                planned = nil
                guard let next = CurlTransfer(url: currentURL, offset: request.offset, generation: request.generation,
                                              ring: ring, configuration: configuration,
                                              requestRange: request.requestRange) else {
                    control.finish(generation: request.generation,
                                   with: .failed(.transferFailed(url: redactedURL, reason: "curl_easy_init failed")))
                    continue
                }
                next.onFirstBody = { [control] transfer in
                    transfer.infoPublished = true
                    control.publish(info: transfer.info)
                }
                next.onMetadata = onMetadata
                next.isReconnect = request.isReconnect
                // A command after the version seen is for the input thread to carry out first.
                next.control = control
                curl_multi_add_handle(multi, next.handle)
                transfer = next
                lastProgress = .now
                lastDelivered = 0
            }

            // Before resuming or performing: a version taken this turn no longer holds it paused.
            transfer?.commandsSeen = seenCommands
            if let current = transfer, current.resumeIfSpace() {
                lastProgress = .now
            }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)

            var pending: Int32 = 0
            var ended: (CurlTransfer, TransferEnd)?
            while let message = curl_multi_info_read(multi, &pending) {
                guard message.pointee.msg == CURLMSG_DONE, let current = transfer,
                      message.pointee.easy_handle == current.handle else { continue }
                ended = (current, transferEnd(for: message.pointee.data.result, transfer: current))
            }

            // A transfer that wants bytes but gets none for too long has stalled: a drop.
            var timeoutMs: Int32 = 250
            if ended == nil, let current = transfer {
                if current.pausedChunk > 0 {
                    lastProgress = .now
                    timeoutMs = ring.announceProducerWaiting(for: current.pausedChunk) ? 0 : 1000
                } else if current.delivered != lastDelivered {
                    lastDelivered = current.delivered
                    lastProgress = .now
                } else if ContinuousClock.now - lastProgress > .seconds(configuration.stallTimeout) {
                    let error = PlayerError.timedOut(url: redactedURL, seconds: configuration.stallTimeout)
                    ended = (current, transferEnd(.stalled, error: error, transfer: current))
                }
            }

            if let (current, end) = ended {
                remove(current)
                planned = carryOut(planner.plan(after: end), after: end, of: current, retries: planner.retries)
                continue
            }

            if transfer == nil {
                let wait = planned.map { $0.notBefore - .now } ?? .seconds(1)
                timeoutMs = Int32(clamping: max(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000, 1))
            }
            if timeoutMs > 0 {
                curl_multi_poll(multi, nil, 0, timeoutMs, nil)
            }
        }
        remove(transfer)
    }

    /// Carries out the planner's decision after a transfer ended: the next request, or `nil`
    /// when the generation is over (finished or failed, which this reports).
    private func carryOut(_ decision: ReconnectPlanner.Decision, after end: TransferEnd,
                          of transfer: CurlTransfer, retries: Int) -> PlannedRequest? {
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
            guard let urlRefresher, let fresh = fetchFreshURL(urlRefresher) else {
                control.finish(generation: transfer.generation, with: .failed(end.error ?? .connectionLost(url: redactedURL, reason: "expired")))
                return nil
            }
            currentURL = fresh
        case .retry(_, let seconds):
            delay = seconds
        }
        onReconnect()
        configuration.logger.info("reconnecting", metadata: [
            "url": "\(redactedURL)", "offset": "\(end.resumeOffset)", "retry": "\(retries)",
            "cause": "\(end.error.map { "\($0)" } ?? "-")",
        ])
        return PlannedRequest(offset: end.resumeOffset, generation: transfer.generation,
                              notBefore: .now + .milliseconds(Int(delay * 1000)),
                              requestRange: !(transfer.isReconnect ? liveStream : transfer.info.isEndless),
                              isReconnect: true)
    }

    /// Asks the refresher for a new URL, blocking this input thread (never the task pool).
    private func fetchFreshURL(_ refresh: @escaping URLRefresher) -> String? {
        BlockingURLRefresher(refresh: refresh).freshURL(replacing: currentURL, timeout: configuration.urlRefreshTimeout) {
            control.stopRequested
        }
    }

    /// How `transfer` ended, for the planner.
    private func transferEnd(for code: CURLcode, transfer: CurlTransfer) -> TransferEnd {
        if transfer.delivered > 0 {
            liveStream = transfer.info.isEndless
            hasDelivered = true
        }
        guard code != CURLE_OK else {
            // A radio server that closes the stream has not reached an end: a live stream has none.
            if transfer.metadataInterval != nil, transfer.info.isEndless, transfer.delivered > 0 {
                return transferEnd(.broken, error: .connectionLost(url: redactedURL, reason: "the server closed the stream"),
                                   transfer: transfer)
            }
            return .completed(offset: transfer.offset, delivered: transfer.delivered)
        }
        return transferEnd(TransferEnd.Failure(curlCode: code, status: transfer.responseCode),
                           error: error(for: code, transfer: transfer), transfer: transfer)
    }

    private func transferEnd(_ failure: TransferEnd.Failure, error: PlayerError, transfer: CurlTransfer) -> TransferEnd {
        if transfer.delivered > 0 { hasDelivered = true }  // a stall ends no curl transfer
        return TransferEnd(failure: failure, error: error, offset: transfer.offset, delivered: transfer.delivered,
                           retryAfter: transfer.retryAfter, inputEstablished: hasDelivered)
    }

    private func error(for code: CURLcode, transfer: CurlTransfer) -> PlayerError {
        CurlRequest.error(for: code, handle: transfer.handle, url: currentURL, received: transfer.delivered,
                          configuration: configuration)
    }
}
