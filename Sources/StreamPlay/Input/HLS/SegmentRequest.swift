import CCurl
import CStreamPlayShim
import FoundationEssentials

/// One HTTP request for a segment, or the rest of one, run to its end for the HLS input thread.
///
/// The request runs on the ``CurlLoop``, and the input thread waits for it in ``perform()``:
/// the thread has nothing else to drive while a segment arrives, and it may wait for ring space
/// in its body handler (which runs on the input thread, never the loop's). A command (stop,
/// seek), a stall or the end of a byte range ends the request early.
final class SegmentRequest {
    private let easy: CurlEasy
    /// First byte asked for, and the last (a byte-range segment), in the resource.
    private let start: Int
    private let end: Int?
    private let stallTimeout: Double
    /// Takes body bytes of the segment; `false` ends the request (a command came).
    private let onBody: (UnsafeRawBufferPointer) -> Bool
    /// Polled about every 50 ms: `true` ends the request.
    private let shouldAbort: () -> Bool
    private var sawBody = false
    /// Bytes to drop: the server ignored the Range and sent the resource from its start.
    private var prefixToSkip = 0
    /// Bytes the request still wants, for a byte-range segment.
    private var remaining: Int?

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
    }

    /// Runs the request. `CURLE_OK` also when it ended because the byte range was complete.
    func perform() -> CURLcode {
        let outcome = CurlBlockingRequest(easy).perform(stallTimeout: stallTimeout, shouldStop: shouldAbort) { bytes, status in
            receive(bytes, status: status)
        }
        switch outcome.interruption {
        case .stopped:
            interruption = .command
        case .stalled:
            interruption = .stalled
        case .refused, nil:
            break  // `receive` said why
        }
        return interruption == .complete ? CURLE_OK : outcome.code
    }

    /// The HTTP status of the response (once ``perform()`` returned).
    var statusCode: Int {
        easy.responseCode
    }

    /// The typed error for a failed request (once ``perform()`` returned).
    func error(for code: CURLcode, url: String, configuration: PlayerConfiguration) -> PlayerError {
        if interruption == .stalled {
            return .timedOut(url: RedactedURL.describe(url), seconds: stallTimeout)
        }
        return CurlRequest.error(for: code, handle: easy.handle, url: url, received: delivered, configuration: configuration)
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
            guard onBody(body) else {
                interruption = .command
                return false
            }
            delivered += body.count
            remaining? -= body.count
        }
        if remaining == 0 {
            // A server that ignored the Range sends more than the segment: enough.
            interruption = .complete
            return false
        }
        return true
    }
}
