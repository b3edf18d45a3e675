import CCurl
import FoundationEssentials

/// One request of an ``CurlHTTPClient`` on the ``CurlLoop``: the easy handle, what it sends and
/// what came back. Created and set up on the caller's task, used only on the loop thread from
/// the moment it is added until it completes.
final class HTTPTransfer: CurlTransferHandler, @unchecked Sendable {
    let id: Int
    let request: HTTPRequest
    /// The easy handle, for the loop.
    let easy: CurlEasy
    private var handle: UnsafeMutableRawPointer { easy.handle }
    private let configuration: CurlHTTPClient.Configuration
    private let progress: UploadProgressRelay?
    private var continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>?
    private var body: [UInt8] = []
    private var headers = HTTPHeaders()
    private var overflow = false
    private var lastSent: Int64 = -1
    private var mime: OpaquePointer?

    init(id: Int, request: HTTPRequest, configuration: CurlHTTPClient.Configuration,
         progress: UploadProgressRelay?,
         continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>) {
        self.id = id
        self.request = request
        self.configuration = configuration
        self.progress = progress
        self.continuation = continuation
        var fields = request.headers
        if case .bytes(_, let contentType) = request.body { fields.set("Content-Type", contentType) }
        // No "Expect: 100-continue" round trip before a body.
        fields.set("Expect", "")
        // Only out of memory makes a handle fail, as it would the request's own buffers.
        easy = CurlEasy(url: request.url, maxRedirects: configuration.maxRedirects,
                        caCertificatesPath: configuration.caCertificatesPath, userAgent: configuration.userAgent,
                        connectTimeout: configuration.connectTimeout, headers: fields.map { ($0.name, $0.value) })!
    }

    deinit {
        // The handle (CurlEasy's) is cleaned up after this body: it lets go of the mime parts
        // first, as libcurl asks before they are freed.
        if let mime {
            sp_curl_setopt_pointer(handle, CURLOPT_MIMEPOST, nil)
            sp_curl_mime_free(mime)
        }
    }

    /// Sets the handle up, before it goes to the loop. An error when the request cannot be made.
    func prepare() -> HTTPClientError? {
        // Error statuses are answers with bodies the API clients read.
        sp_curl_setopt_long(handle, CURLOPT_FAILONERROR, 0)
        sp_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0)
        sp_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 0)
        sp_curl_setopt_pointer(handle, CURLOPT_ACCEPT_ENCODING, "")
        sp_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int((request.timeout ?? configuration.requestTimeout) * 1000))
        switch request.body {
        case .none:
            break
        case .bytes(let bytes, _):
            sp_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, bytes.count)
            bytes.withUnsafeBytes { raw in
                // COPYPOSTFIELDS: libcurl keeps its own copy for the life of the handle.
                _ = sp_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
            }
        case .multipart(let form):
            guard let error = attach(form) else { break }
            return error
        }
        switch request.method {
        case .get:
            if case .none = request.body { sp_curl_setopt_long(handle, CURLOPT_HTTPGET, 1) }
            else { sp_curl_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, "GET") }
        case .head:
            sp_curl_setopt_long(handle, CURLOPT_NOBODY, 1)
        case .post:
            if case .none = request.body { sp_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0); sp_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, "") }
        default:
            sp_curl_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        // Body and headers come through the loop (``CurlTransferHandler``); progress directly,
        // to the relay, which hands it to the caller's closure off the loop thread.
        let context = Unmanaged.passUnretained(self).toOpaque()
        if progress != nil {
            sp_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
            sp_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
            sp_curl_setopt_xferinfo_callback(handle) { context, _, _, total, sent in
                Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue().reportProgress(sent: Int64(sent), total: Int64(total))
                return 0
            }
        }
        return nil
    }

    private func attach(_ form: MultipartForm) -> HTTPClientError? {
        guard let mime = sp_curl_mime_init(handle) else { return .invalidRequest("curl_mime_init failed") }
        self.mime = mime
        for part in form.parts {
            let piece = sp_curl_mime_addpart(mime)
            switch part {
            case .field(let name, let value):
                sp_curl_mime_name(piece, name)
                sp_curl_mime_data(piece, value, value.utf8.count)
            case .file(let name, let path, let filename, let contentType):
                sp_curl_mime_name(piece, name)
                guard sp_curl_mime_filedata(piece, path) == CURLE_OK else {
                    return .invalidRequest("cannot read \(path) to upload")
                }
                sp_curl_mime_filename(piece, filename)
                sp_curl_mime_type(piece, contentType)
            case .data(let name, let bytes, let filename, let contentType):
                sp_curl_mime_name(piece, name)
                bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        _ = sp_curl_mime_data(piece, chars.baseAddress, bytes.count)
                    }
                }
                sp_curl_mime_filename(piece, filename)
                sp_curl_mime_type(piece, contentType)
            }
        }
        sp_curl_setopt_pointer(handle, CURLOPT_MIMEPOST, UnsafeRawPointer(mime))
        return nil
    }

    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer {
        guard body.count + bytes.count <= configuration.maximumResponseSize else {
            overflow = true
            return .abort
        }
        body.append(contentsOf: bytes)
        return .take
    }

    func curlHeader(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        if line.hasPrefix("HTTP/") {
            // A new response (after a redirect that was followed, or a 100 Continue).
            headers = HTTPHeaders()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers.add(String(line[..<colon]).trimmingWhitespace(), String(line[line.index(after: colon)...]).trimmingWhitespace())
    }

    /// Loop thread: only hands the figures over, never calls the caller's code.
    private func reportProgress(sent: Int64, total: Int64) {
        guard sent != lastSent, total > 0 else { return }
        lastSent = sent
        progress?.report(sent: sent, total: total)
    }

    /// The result of a finished transfer.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, HTTPClientError> {
        let redacted = RedactedURL.describe(request.url)
        if overflow { return .failure(.responseTooLarge(url: redacted, limit: configuration.maximumResponseSize)) }
        guard code == CURLE_OK else {
            if CurlFailureKind(code) == .timedOut {
                var connected = 0
                sp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &connected)
                if connected != 0 || !body.isEmpty {
                    return .failure(.network(.timedOut(url: redacted, seconds: request.timeout ?? configuration.requestTimeout)))
                }
            }
            return .failure(.network(CurlRequest.error(for: code, handle: handle, url: request.url, received: body.count,
                                                       connectTimeout: configuration.connectTimeout)))
        }
        var status = 0
        sp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafePointer<CChar>?
        sp_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        return .success(HTTPResponse(status: status, headers: headers, body: body,
                                     url: effective.map { String(cString: $0) } ?? request.url))
    }

    func curlDone(_ end: CurlTransferEnd) {
        switch end {
        case .finished(let code):
            complete(outcome(code))
        case .cancelled:
            complete(.failure(.cancelled(url: RedactedURL.describe(request.url))))
        }
    }

    /// Resumes the waiting task, once.
    func complete(_ result: Result<HTTPResponse, HTTPClientError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }
}

/// Carries upload progress from the loop thread to the caller's closure, which runs in a task
/// of its own: a slow closure must not stall every stream on the loop, and one that waits for
/// the loop (a `Player.stop()` joins an input thread that waits for it) would never return.
/// The closure still runs on the shared task pool, so it must not block its thread.
///
/// Only the newest figures are kept while the closure is busy: it hears fewer calls, never
/// stale ones, and the loop never waits for it.
final class UploadProgressRelay: Sendable {
    private struct Figures: Sendable {
        let sent: Int64
        let total: Int64
    }

    private let continuation: AsyncStream<Figures>.Continuation
    private let delivery: Task<Void, Never>

    init(_ closure: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) {
        let (figures, continuation) = AsyncStream.makeStream(of: Figures.self, bufferingPolicy: .bufferingNewest(1))
        self.continuation = continuation
        delivery = Task {
            for await next in figures { closure(next.sent, next.total) }
        }
    }

    /// Records the newest figures. Any thread; returns at once.
    func report(sent: Int64, total: Int64) {
        continuation.yield(Figures(sent: sent, total: total))
    }

    /// Ends the reports, once the closure has heard the last figures; at once when the
    /// calling task is cancelled (a closure that hangs must not hold up a cancelled request).
    func finish() async {
        continuation.finish()
        if Task.isCancelled { return }
        await delivery.value
    }
}
