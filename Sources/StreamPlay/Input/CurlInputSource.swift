import CCurl
import CStreamPlayShim
import Foundation
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
    private let ring: ByteRing
    private let configuration: PlayerConfiguration
    private let multi: UnsafeMutableRawPointer
    private var thread: EngineThread?

    /// libcurl's global state is set up once per process, before any handle exists.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init(url: String, ring: ByteRing, control: InputControl, configuration: PlayerConfiguration) {
        _ = Self.globalInit
        self.url = url
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

    private func run() {
        var transfer: CurlTransfer?
        var lastProgress = ContinuousClock.now
        var lastDelivered = 0

        func finish(_ current: CurlTransfer?) {
            guard let current else { return }
            curl_multi_remove_handle(multi, current.handle)
            transfer = nil
        }

        while !control.stopRequested {
            if let restart = control.takeRestart() {
                finish(transfer)
                ring.beginGeneration(restart.generation)
                guard let next = CurlTransfer(url: url, offset: restart.offset, generation: restart.generation,
                                              ring: ring, configuration: configuration) else {
                    control.finish(generation: restart.generation,
                                   with: .failed(.transferFailed(url: redactedURL, reason: "curl_easy_init failed")))
                    continue
                }
                next.onFirstBody = { [control] transfer in
                    transfer.infoPublished = true
                    control.publish(info: transfer.info)
                }
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
            while let message = curl_multi_info_read(multi, &pending) {
                guard message.pointee.msg == CURLMSG_DONE, let current = transfer,
                      message.pointee.easy_handle == current.handle else { continue }
                let code = message.pointee.data.result
                let outcome: InputOutcome = code == CURLE_OK ? .finished : .failed(error(for: code, transfer: current))
                if code == CURLE_OK, !current.infoPublished {
                    control.publish(info: current.info)
                }
                finish(current)
                control.finish(generation: current.generation, with: outcome)
            }

            // A transfer that wants bytes but gets none for too long has stalled.
            var timeoutMs: Int32 = 250
            if let current = transfer {
                if current.pausedChunk > 0 {
                    lastProgress = .now
                    if !ring.announceProducerWaiting(for: current.pausedChunk) { timeoutMs = 1000 } else { timeoutMs = 0 }
                } else if current.delivered != lastDelivered {
                    lastDelivered = current.delivered
                    lastProgress = .now
                } else if ContinuousClock.now - lastProgress > .seconds(configuration.stallTimeout) {
                    finish(current)
                    control.finish(generation: current.generation,
                                   with: .failed(.timedOut(url: redactedURL, seconds: configuration.stallTimeout)))
                    continue
                }
            } else {
                timeoutMs = 1000
            }
            if timeoutMs > 0 {
                curl_multi_poll(multi, nil, 0, timeoutMs, nil)
            }
        }
        finish(transfer)
    }

    private func error(for code: CURLcode, transfer: CurlTransfer) -> PlayerError {
        let reason = String(cString: curl_easy_strerror(code))
        let host = URLComponents(string: url)?.host ?? redactedURL
        switch code {
        case CURLE_HTTP_RETURNED_ERROR:
            return .httpStatus(code: transfer.responseCode, url: redactedURL)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .hostNotFound(host: host)
        case CURLE_COULDNT_CONNECT:
            return .connectionFailed(url: redactedURL, reason: "\(reason) (\(osErrorDescription(transfer)))")
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: redactedURL, seconds: configuration.connectTimeout)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR:
            return .tlsFailure(url: redactedURL, reason: reason)
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects(url: redactedURL)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .unsupportedScheme(URLComponents(string: url)?.scheme ?? redactedURL)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            return transfer.delivered > 0
                ? .connectionLost(url: redactedURL, reason: reason)
                : .connectionFailed(url: redactedURL, reason: reason)
        default:
            return .transferFailed(url: redactedURL, reason: reason)
        }
    }

    private func osErrorDescription(_ transfer: CurlTransfer) -> String {
        var osError = 0
        sp_curl_getinfo_long(transfer.handle, CURLINFO_OS_ERRNO, &osError)
        return osError == 0 ? "no OS error" : String(cString: strerror(Int32(osError)))
    }
}
