import CCurl
import CStreamPlayShim
import FoundationEssentials

/// One HTTP request for a segment, or the rest of one, run to its end on the HLS input thread.
///
/// A blocking `curl_easy_perform` is enough here: the thread has nothing else to drive while a
/// segment arrives, and it waits for ring space inside the body callback. The progress callback
/// ends the request early for a command (stop, seek) or a stall.
final class SegmentRequest {
    private let easy: CurlEasy
    private var handle: UnsafeMutableRawPointer { easy.handle }
    /// First byte asked for, and the last (a byte-range segment), in the resource.
    private let start: Int
    private let end: Int?
    private let stallTimeout: Double
    /// Takes body bytes of the segment; `false` ends the request (a command came).
    private let onBody: (UnsafeRawBufferPointer) -> Bool
    /// Polled about once a second and on every body chunk: `true` ends the request.
    private let shouldAbort: () -> Bool
    private var sawBody = false
    /// Bytes to drop: the server ignored the Range and sent the resource from its start.
    private var prefixToSkip = 0
    /// Bytes the request still wants, for a byte-range segment.
    private var remaining: Int?
    private var lastActivity = ContinuousClock.now

    /// Why a request ended early, if it did.
    enum Interruption { case command, stalled, complete }
    private(set) var interruption: Interruption?
    /// Body bytes of the segment delivered (skipped prefix not counted).
    private(set) var delivered = 0

    init?(url: String, start: Int, end: Int?, configuration: PlayerConfiguration,
          onBody: @escaping (UnsafeRawBufferPointer) -> Bool, shouldAbort: @escaping () -> Bool) {
        guard let easy = CurlEasy(url: url, configuration: configuration) else { return nil }
        self.easy = easy
        self.start = start
        self.end = end
        self.stallTimeout = configuration.stallTimeout
        self.onBody = onBody
        self.shouldAbort = shouldAbort
        if let end { remaining = end - start + 1 }
        if start > 0 || end != nil { easy.requestRange(from: start, through: end) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        sp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let request = Unmanaged<SegmentRequest>.fromOpaque(context!).takeUnretainedValue()
            return request.receive(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        sp_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        sp_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        sp_curl_setopt_xferinfo_callback(handle) { context, _, _, _, _ in
            Unmanaged<SegmentRequest>.fromOpaque(context!).takeUnretainedValue().progress() ? 0 : 1
        }
    }

    /// Runs the request. `CURLE_OK` also when it ended because the byte range was complete.
    func perform() -> CURLcode {
        let code = curl_easy_perform(handle)
        return interruption == .complete ? CURLE_OK : code
    }

    /// The HTTP status of the response.
    var statusCode: Int {
        easy.responseCode
    }

    /// The typed error for a failed request.
    func error(for code: CURLcode, url: String, configuration: PlayerConfiguration) -> PlayerError {
        if interruption == .stalled {
            return .timedOut(url: RedactedURL.describe(url), seconds: stallTimeout)
        }
        return CurlRequest.error(for: code, handle: handle, url: url, received: delivered, configuration: configuration)
    }

    private func progress() -> Bool {
        if shouldAbort() {
            interruption = .command
            return false
        }
        if ContinuousClock.now - lastActivity > .seconds(stallTimeout) {
            interruption = .stalled
            return false
        }
        return true
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !sawBody {
            sawBody = true
            if start > 0 && statusCode == 200 { prefixToSkip = start }
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
            guard onBody(body) else {
                interruption = .command
                return 0
            }
            delivered += body.count
            remaining? -= body.count
        }
        lastActivity = .now
        if remaining == 0 {
            // A server that ignored the Range sends more than the segment: enough.
            interruption = .complete
            return 0
        }
        return bytes.count
    }
}
