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
    private let urlRefresher: (@Sendable (String) async throws -> String)?
    private let onMetadata: @Sendable (StreamMetadata) -> Void
    private let onReconnect: @Sendable () -> Void
    /// Whether the resource turned out to be a live stream (no length, no ranges), as the last
    /// transfer that delivered audio said. Input thread only.
    private var liveStream = false
    private let ring: ByteRing
    private let configuration: PlayerConfiguration
    private let multi: UnsafeMutableRawPointer
    private var thread: EngineThread?

    init(url: String, ring: ByteRing, control: InputControl, configuration: PlayerConfiguration,
         urlRefresher: (@Sendable (String) async throws -> String)? = nil,
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

    /// Why a transfer ended, as far as recovery is concerned.
    private enum Ending {
        case finished
        case failed(PlayerError)
        /// The connection broke or stalled: resume where the bytes stopped.
        case dropped(PlayerError)
        /// The resumed request was refused as expired (403, 410): ask for a fresh URL.
        case expired(PlayerError)
        /// 503 with a short Retry-After: try again then.
        case retryAfter(seconds: Double, PlayerError)
    }

    private func run() {
        var transfer: CurlTransfer?
        var planned: PlannedRequest?
        var attempts = 0
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
                attempts = 0
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
                curl_multi_add_handle(multi, next.handle)
                transfer = next
                lastProgress = .now
                lastDelivered = 0
            }

            if let current = transfer, current.resumeIfSpace() {
                lastProgress = .now
            }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)

            var pending: Int32 = 0
            var ended: (CurlTransfer, Ending)?
            while let message = curl_multi_info_read(multi, &pending) {
                guard message.pointee.msg == CURLMSG_DONE, let current = transfer,
                      message.pointee.easy_handle == current.handle else { continue }
                ended = (current, ending(for: message.pointee.data.result, transfer: current))
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
                    ended = (current, current.delivered > 0 || current.offset > 0 ? .dropped(error) : .failed(error))
                }
            }

            if let (current, ending) = ended {
                remove(current)
                if current.delivered > 0 { attempts = 0 }
                planned = plan(after: ending, of: current, attempts: &attempts)
                if planned == nil {
                    switch ending {
                    case .finished:
                        if !current.infoPublished { control.publish(info: current.info) }
                        control.finish(generation: current.generation, with: .finished)
                    case .failed(let error), .dropped(let error), .expired(let error), .retryAfter(_, let error):
                        control.finish(generation: current.generation, with: .failed(error))
                    }
                }
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

    /// The next request after a transfer ended, or `nil` when the generation is over.
    private func plan(after ending: Ending, of transfer: CurlTransfer, attempts: inout Int) -> PlannedRequest? {
        let policy = configuration.reconnect
        let resumeAt = transfer.offset + transfer.delivered
        switch ending {
        case .finished, .failed:
            return nil
        case .dropped(let error), .expired(let error):
            guard attempts < policy.maxAttempts else { return nil }
            attempts += 1
            if case .expired = ending {
                guard let refresh = urlRefresher, let fresh = fetchFreshURL(refresh) else { return nil }
                currentURL = fresh
            }
            let delay = min(policy.initialDelay * pow(2, Double(attempts - 1)), policy.maximumDelay)
            onReconnect()
            configuration.logger.info("reconnecting", metadata: [
                "url": "\(redactedURL)", "offset": "\(resumeAt)", "attempt": "\(attempts)", "cause": "\(error)",
            ])
            return PlannedRequest(offset: resumeAt, generation: transfer.generation,
                                  notBefore: .now + .milliseconds(Int(delay * 1000)),
                                  requestRange: !(transfer.isReconnect ? liveStream : transfer.info.isEndless),
                                  isReconnect: true)
        case .retryAfter(let seconds, _):
            // Once: a server that keeps answering 503 is down, and the listener should know.
            guard attempts == 0, seconds <= policy.maximumRetryAfter else { return nil }
            attempts += 1
            return PlannedRequest(offset: resumeAt, generation: transfer.generation,
                                  notBefore: .now + .milliseconds(Int(seconds * 1000)))
        }
    }

    /// Asks the refresher for a new URL, blocking this input thread (never the task pool).
    private func fetchFreshURL(_ refresh: @escaping @Sendable (String) async throws -> String) -> String? {
        URLRefresher(refresh: refresh).freshURL(replacing: currentURL, timeout: configuration.urlRefreshTimeout) {
            control.stopRequested
        }
    }

    private func ending(for code: CURLcode, transfer: CurlTransfer) -> Ending {
        if transfer.delivered > 0 {
            liveStream = transfer.info.isEndless
        }
        guard code != CURLE_OK else {
            // A radio server that closes the stream has not reached an end: a live stream has none.
            if transfer.metadataInterval != nil, transfer.info.isEndless, transfer.delivered > 0 {
                return .dropped(.connectionLost(url: redactedURL, reason: "the server closed the stream"))
            }
            return .finished
        }
        let error = error(for: code, transfer: transfer)
        let status = transfer.responseCode
        let resuming = transfer.offset > 0
        if transfer.isReconnect {
            // Reconnecting: a server that is restarting refuses or fails for a while.
            switch code {
            case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING,
                 CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
                return .dropped(error)
            case CURLE_HTTP_RETURNED_ERROR where status >= 500 && status != 503:
                return .dropped(error)
            default:
                break
            }
        }
        switch code {
        case CURLE_HTTP_RETURNED_ERROR where status == 416 && resuming:
            // Asked for bytes past the end: everything had arrived (a Content-Length that lied).
            return .finished
        case CURLE_HTTP_RETURNED_ERROR where (status == 403 || status == 410) && urlRefresher != nil
            && (resuming || !transfer.isReconnect):
            // A signed URL that expired, mid-stream or before the item's turn came: ask for a new
            // one. A first request refused again after a refresh is final; mid-stream, the
            // reconnect attempts bound the asking.
            return .expired(error)
        case CURLE_HTTP_RETURNED_ERROR where status == 503:
            return transfer.retryAfter.map { .retryAfter(seconds: $0, error) } ?? .failed(error)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_OPERATION_TIMEDOUT:
            return transfer.delivered > 0 || resuming ? .dropped(error) : .failed(error)
        default:
            return .failed(error)
        }
    }

    private func error(for code: CURLcode, transfer: CurlTransfer) -> PlayerError {
        CurlRequest.error(for: code, handle: transfer.handle, url: currentURL, received: transfer.delivered,
                          configuration: configuration)
    }
}
