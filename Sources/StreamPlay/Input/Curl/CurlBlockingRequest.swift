import CCurl
import CStreamPlayShim
import Synchronization

/// One request on the ``CurlLoop`` for a caller that lives on a thread of its own and waits for
/// it: a playlist, a key, an HLS segment, a tag's bytes.
///
/// The loop thread must never block, and what the caller does with the bytes may (an HLS input
/// waits for room in its ring, decrypts, filters). So the loop only copies body bytes into a
/// small buffer here, pausing the transfer while the buffer is full; the caller's thread takes
/// them out in ``perform(stallTimeout:shouldStop:onBody:)`` and resumes the transfer. Stops and
/// stalls are checked on the caller's thread too, and end the transfer by cancelling it.
final class CurlBlockingRequest: CurlTransferHandler, @unchecked Sendable {
    /// Why a request ended before libcurl finished it, if it did.
    enum Interruption: Equatable, Sendable {
        /// `shouldStop` said so.
        case stopped
        /// No byte came for the stall timeout.
        case stalled
        /// `onBody` refused bytes, or the body went over the request's byte limit.
        case refused
    }

    /// How a request ended.
    struct Outcome {
        /// libcurl's result; `CURLE_ABORTED_BY_CALLBACK` when it was interrupted.
        var code: CURLcode
        /// Set when the caller's side ended it.
        var interruption: Interruption?
    }

    /// Body bytes buffered beyond which the transfer pauses until the caller catches up.
    static let bufferLimit = 256 * 1024

    /// What the loop thread hands the caller's thread, under `state`'s lock: the loop appends
    /// and ends, the caller empties.
    private struct State {
        /// Body chunks not yet taken, each with the response status it came under.
        var chunks: [(status: Int, bytes: [UInt8])] = []
        /// Bytes in `chunks`, against ``bufferLimit``.
        var buffered = 0
        /// Set when the loop paused the transfer for lack of room; the caller resumes it once
        /// it has emptied `chunks`.
        var paused = false
        /// Set by ``curlDone(_:)``: the loop has let go of the handle.
        var end: CurlTransferEnd?
        /// How many times the loop paused the transfer, for the tests.
        var pauses = 0
        /// Body bytes the loop took so far, against ``byteLimit``.
        var received = 0
        /// Set when the body went over ``byteLimit`` and the loop aborted the transfer.
        var overLimit = false
    }

    /// The request's handle: the loop thread's while the request runs, the caller's before and
    /// after (its status, for the error of a failure).
    let easy: CurlEasy
    private let loop: CurlLoop
    /// The most body bytes the request may bring (`nil`: no limit). Checked on the loop
    /// thread, so that a response over it is cut off at the chunk that crosses it rather
    /// than after a buffer's worth: a server that ignores a Range request and sends a whole
    /// file, a playlist that is not one.
    let byteLimit: Int?
    private let state = Mutex(State())
    private let wake = ThreadSignal()

    /// A request for `easy`, whose options the caller has set.
    init(_ easy: CurlEasy, byteLimit: Int? = nil, loop: CurlLoop = .shared) {
        self.easy = easy
        self.byteLimit = byteLimit
        self.loop = loop
    }

    /// Runs the request to its end on the loop, handing body bytes to `onBody` on this thread.
    /// - Parameters:
    ///   - stallTimeout: seconds without a byte after which the request ends as stalled
    ///     (`nil`: only libcurl's own timeouts apply).
    ///   - shouldStop: polled about every 50 ms; `true` ends the request.
    ///   - onBody: takes body bytes, with the status of the response they belong to; `false`
    ///     ends the request (nothing more is handed over).
    func perform(stallTimeout: Double? = nil, shouldStop: () -> Bool,
                 onBody: (UnsafeRawBufferPointer, _ status: Int) -> Bool) -> Outcome {
        let id = loop.add(easy, handler: self)
        var interruption: Interruption?
        var lastActivity = ContinuousClock.now
        while true {
            let (chunks, paused, end) = state.withEngineLock { state in
                defer {
                    state.chunks = []
                    state.buffered = 0
                    state.paused = false
                }
                return (state.chunks, state.paused, state.end)
            }
            if interruption == nil && !chunks.isEmpty {
                for chunk in chunks {
                    let taken = chunk.bytes.withUnsafeBytes { onBody($0, chunk.status) }
                    if !taken {
                        interruption = .refused
                        loop.cancel(id)
                        break
                    }
                }
                lastActivity = .now
            }
            if let end {
                if state.withEngineLock({ $0.overLimit }) { interruption = interruption ?? .refused }
                guard case .finished(let code) = end, interruption == nil else {
                    return Outcome(code: CURLE_ABORTED_BY_CALLBACK, interruption: interruption ?? .stopped)
                }
                return Outcome(code: code, interruption: nil)
            }
            if interruption == nil {
                if shouldStop() {
                    interruption = .stopped
                    loop.cancel(id)
                } else if let stallTimeout, ContinuousClock.now - lastActivity > .seconds(stallTimeout) {
                    interruption = .stalled
                    loop.cancel(id)
                } else if paused {
                    loop.resume(id)
                }
            }
            wake.wait(timeout: 0.05)
        }
    }

    /// How many times the transfer paused for a full buffer so far. Any thread; for the tests.
    var pauses: Int { state.withEngineLock { $0.pauses } }

    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer {
        // Loop thread: the handle is the loop's now.
        let status = easy.responseCode
        let answer = state.withEngineLock { state -> CurlDataAnswer in
            if let byteLimit, state.received + bytes.count > byteLimit {
                state.overLimit = true
                return .abort
            }
            if state.buffered > 0 && state.buffered + bytes.count > Self.bufferLimit {
                state.paused = true
                state.pauses += 1
                return .pause
            }
            state.chunks.append((status, [UInt8](bytes)))
            state.buffered += bytes.count
            state.received += bytes.count
            return .take
        }
        wake.signal()
        return answer
    }

    func curlDone(_ end: CurlTransferEnd) {
        state.withEngineLock { $0.end = end }
        wake.signal()
    }
}
