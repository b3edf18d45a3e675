import CCurl
import Synchronization

/// The engine's ``MediaTransport``: each request an easy handle with the shared settings
/// (``CurlEasy``), run on the ``CurlLoop``.
struct CurlMediaTransport: MediaTransport {
    let configuration: PlayerConfiguration
    /// The loop its transfers run on; `nil` for ``CurlLoop/shared``, taken at each transfer's
    /// start (so that making a transport does not load libcurl).
    let loop: CurlLoop?

    init(configuration: PlayerConfiguration, loop: CurlLoop? = nil) {
        self.configuration = configuration
        self.loop = loop
    }

    func startTransfer(_ request: MediaRequest, receiver: any MediaTransferReceiver) -> any MediaTransferControl {
        // The shared loop is `nil` when libcurl cannot be loaded (or `curl_multi_init` failed).
        guard let loop = loop ?? CurlLoop.shared else {
            return Self.fail(receiver, reason: CurlRequest.loadFailure ?? "curl_multi_init failed")
        }
        guard let easy = CurlEasy(url: request.url, maxRedirects: configuration.maxRedirects,
                                  caCertificatesPath: configuration.caCertificatesPath,
                                  userAgent: configuration.userAgent, connectTimeout: configuration.connectTimeout,
                                  headers: request.headers.fields.map { ($0.name, $0.value) }) else {
            return Self.fail(receiver, reason: "curl_easy_init failed")
        }
        if let start = request.rangeStart { easy.requestRange(from: start, through: request.rangeEnd) }
        let transfer = CurlMediaTransfer(easy: easy, receiver: receiver)
        return CurlMediaTransfer.Control(loop: loop, id: loop.add(easy, handler: transfer))
    }

    /// Ends a transfer that could not start, on the caller's thread, and returns its control.
    private static func fail(_ receiver: any MediaTransferReceiver, reason: String) -> any MediaTransferControl {
        receiver.receiveEnd(.failed(MediaTransferFailure(kind: .other, reason: reason)))
        return CurlMediaTransfer.Control(loop: nil, id: 0)
    }
}

/// One transfer of the ``CurlMediaTransport`` on the loop: gathers the final response's header
/// lines and hands them, with the status libcurl settled on, to the receiver before the first
/// body byte (or at the end, for a response without a body).
final class CurlMediaTransfer: CurlTransferHandler, @unchecked Sendable {
    /// Steers the transfer through its loop.
    struct Control: MediaTransferControl {
        /// `nil` for a transfer that never started.
        let loop: CurlLoop?
        let id: Int
        func resume() { loop?.resume(id) }
        func cancel() { loop?.cancel(id) }
    }

    /// The loop thread's while the transfer runs; read here in `curlDone` once it is off.
    private let easy: CurlEasy
    private let receiver: any MediaTransferReceiver
    // Loop thread only.
    private var headers = HTTPHeaders()
    private var headSent = false

    init(easy: CurlEasy, receiver: any MediaTransferReceiver) {
        self.easy = easy
        self.receiver = receiver
    }

    func curlHeader(_ bytes: UnsafeRawBufferPointer) {
        guard let raw = String(bytes: bytes, encoding: .isoLatin1) else { return }
        let line = raw.trimmingWhitespace()
        if line.hasPrefix("HTTP/") || line.hasPrefix("ICY ") {
            // A new response block (after a redirect or a 100 Continue): only the last counts.
            headers = HTTPHeaders()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].trimmingWhitespace()))
    }

    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer {
        sendHead()
        switch receiver.receiveBody(bytes) {
        case .take: return .take
        case .pause: return .pause
        }
    }

    func curlDone(_ end: CurlTransferEnd) {
        switch end {
        case .cancelled:
            receiver.receiveEnd(.cancelled)
        case .finished(let code):
            sendHead()
            var osError = 0
            sp_curl_getinfo_long(easy.handle, CURLINFO_OS_ERRNO, &osError)
            if let failure = CurlRequest.failure(for: code, osError: Int32(truncatingIfNeeded: osError)) {
                receiver.receiveEnd(.failed(failure))
            } else {
                receiver.receiveEnd(.completed)
            }
        }
    }

    /// Hands the head over once, if a response came.
    private func sendHead() {
        guard !headSent else { return }
        let status = easy.responseCode
        guard status > 0 else { return }
        headSent = true
        receiver.receiveHead(MediaResponseHead(status: status, headers: headers))
    }
}
