import FoundationEssentials
import Synchronization

/// One HTTP(S) request of a ``CurlInputSource``, run by its ``MediaTransport`` (the
/// ``CurlLoop``, or a stand-in): the body written into the ring, and what the head says.
///
/// Its calls come on the transport's thread, which is the ring's producer while the transfer
/// runs: a body that does not fit pauses the transfer (that thread never waits), and the input
/// thread resumes it through the transport once the decoder has made room. The input thread
/// reads only ``delivered``, ``pausedChunk``, ``misplacedRange``, ``end`` and the ICY
/// titles found (``takeMetadata()``) while the transfer runs (atomics and locks); everything
/// else (the head) once ``end`` is set, or once it removed the transfer.
final class HTTPInputTransfer: MediaTransferReceiver, @unchecked Sendable {
    /// The request, as the transport is asked to make it.
    let request: MediaRequest
    /// Woken when the transfer pauses or ends: the input thread's signal.
    private let wake: ThreadSignal
    let offset: Int
    let generation: Int
    let ring: ByteRing
    /// Whether a Range was asked for (`false` when resuming a live stream).
    let requestsRange: Bool

    /// What the engine reads from the response's head (set before the first body byte).
    private(set) var headers = ResponseHeaders()
    private var statusCode: Int { headers.statusCode }
    private var acceptsRanges: Bool { headers.acceptsRanges }
    private var contentRangeTotal: Int? { headers.contentRangeTotal }
    /// Seconds from a Retry-After header (delta form), if the response had one.
    var retryAfter: Double? { headers.retryAfter }
    /// Body bytes still to throw away (a server that ignored our Range and sent the whole body,
    /// or began its answer before the byte asked for).
    private var prefixToSkip = 0
    /// The first and last byte of a Range answer that does not hold the byte asked for (it
    /// begins after it, or ends before it): bytes are missing, and none of the body is taken.
    /// -1 while not so; the end is stored before the start, which announces both.
    private let misplacedStart = Atomic<Int>(-1)
    private let misplacedEnd = Atomic<Int>(-1)
    private var sawBody = false
    /// Size of the chunk curl holds while paused (0 when not paused); resume once that much is
    /// free. Set on the transport thread, taken back by the input thread when it resumes.
    private let pausedBytes = Atomic<Int>(0)
    /// Body bytes delivered to the ring (written on the transport thread).
    private let deliveredBytes = Atomic<Int>(0)
    /// How the transfer ended, once the transport let go of it.
    private let ending = Mutex<MediaTransferEnd?>(nil)
    /// Set on the transport thread once headers were published; read after ``end``.
    var infoPublished = false
    /// Set by the source for a reconnect after a drop.
    var isReconnect = false
    /// Called on the transport thread with the first body bytes' response. Set before the transfer
    /// is added.
    var onFirstBody: ((HTTPInputTransfer) -> Void)?
    /// Whether a command (restart, stop) came after the version the input thread last took,
    /// asked on the transport thread before each body chunk. A transfer whose input is about to
    /// drop it then pauses, so that `curl_multi_perform` returns at once rather than read on
    /// (up to libcurl's hundred buffers in one call) a response about to be dropped: a FLAC
    /// bisection seek restarts the input dozens of times in a row. Set before the transfer is
    /// added.
    var commandWaiting: @Sendable (_ seen: Int) -> Bool = { _ in false }
    /// The command version the input thread last took (``commandsTaken(upTo:)``).
    private let seenCommands = Atomic<Int>(0)
    /// Set while the transfer is paused for a waiting command (not ``pausedChunk``, which the
    /// input thread resumes when the ring has room: it might do so between taking a command
    /// and carrying it out). Sequentially consistent with ``seenCommands``: see `receiveBody`.
    private let heldForCommand = Atomic<Bool>(false)

    /// ICY metadata found in the stream and not yet taken by the input thread: the transport thread
    /// only queues it, so that no listener's report ever runs there.
    private let foundMetadata = Mutex<[StreamMetadata]>([])
    /// Interval of in-band metadata (`icy-metaint`), when the server sends it.
    var metadataInterval: Int? { headers.metadataInterval }
    private var demuxer: ICYDemuxer?
    /// Audio separated from metadata, before it goes to the ring.
    private var scratch: UnsafeMutableRawBufferPointer?

    /// - Parameter requestRange: `false` to resume a live stream: no Range header, and the
    ///   bytes that arrive simply continue the stream.
    /// - Parameter wake: signalled when the transfer pauses or ends.
    init(url: String, offset: Int, generation: Int, ring: ByteRing, configuration: PlayerConfiguration,
         requestRange: Bool = true, wake: ThreadSignal) {
        // Radio servers send song titles in-band only when asked.
        let headers = [("Icy-MetaData", "1")] + configuration.requestHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        request = MediaRequest(url: url, rangeStart: offset > 0 && requestRange ? offset : nil,
                               headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
        self.offset = offset
        self.generation = generation
        self.requestsRange = requestRange
        self.ring = ring
        self.wake = wake
    }

    deinit {
        scratch?.deallocate()
    }

    /// Content-Type of the final response.
    var contentType: String? { headers.contentType }

    /// Content-Length of the final response, or -1.
    var contentLength: Int { headers.contentLength ?? -1 }

    /// The HTTP status of the last response (after redirects); 0 when none came.
    var responseCode: Int { statusCode }

    /// What the response says about the resource as a whole.
    var info: InputInfo {
        let length = contentLength
        var total: Int?
        if let contentRangeTotal {
            total = contentRangeTotal
        } else if length >= 0 {
            // A 200 answer carries the whole resource; a 206 without a total only the rest.
            if statusCode == 206 {
                let (sum, overflow) = offset.addingReportingOverflow(length)
                total = overflow ? nil : sum
            } else {
                total = length
            }
        }
        return InputInfo(contentType: contentType, totalLength: total, supportsRanges: acceptsRanges || statusCode == 206,
                         metadataInterval: metadataInterval)
    }

    /// Body bytes delivered to the ring so far. Any thread.
    var delivered: Int { deliveredBytes.load(ordering: .acquiring) }

    /// The bytes the server's Range answer holds, by its `Content-Range`, when they do not
    /// include the byte asked for: bytes would be missing, so none is taken and the input
    /// fails the transfer. Any thread.
    var misplacedRange: ClosedRange<Int>? {
        let start = misplacedStart.load(ordering: .acquiring)
        return start >= 0 ? start...misplacedEnd.load(ordering: .relaxed) : nil
    }

    /// Whether the answer was a Range answer that stops before the resource's end, by its
    /// `Content-Range` (a server that caps what one answer sends). Read once ``end`` is set.
    var endsBeforeResource: Bool {
        guard statusCode == 206, let range = headers.contentRange, let total = contentRangeTotal else { return false }
        return range.upperBound + 1 < total
    }

    /// The size of the chunk libcurl holds while the transfer is paused for ring space, or 0.
    /// Any thread.
    var pausedChunk: Int { pausedBytes.load(ordering: .acquiring) }

    /// How the transfer ended, once the transport is done with it (`nil` while it runs). Any thread.
    var end: MediaTransferEnd? { ending.withEngineLock { $0 } }

    /// The ICY metadata found since the last call, in stream order. Any thread.
    func takeMetadata() -> [StreamMetadata] {
        foundMetadata.withEngineLock { found in
            defer { found = [] }
            return found
        }
    }

    /// Whether the transfer is paused for a waiting command. Any thread.
    var isHeldForCommand: Bool { heldForCommand.load(ordering: .sequentiallyConsistent) }

    /// Records that the input thread took the commands up to `version` and keeps this transfer.
    /// - Returns: whether the transfer was paused for one of them and must be resumed (through
    ///   the transport). Input thread.
    func commandsTaken(upTo version: Int) -> Bool {
        seenCommands.store(version, ordering: .sequentiallyConsistent)
        return heldForCommand.exchange(false, ordering: .sequentiallyConsistent)
    }

    /// Whether a transfer paused for lack of ring space may go on: there is room now. The
    /// caller then resumes it through the transport.
    /// Input thread.
    func takeResumption() -> Bool {
        let chunk = pausedChunk
        guard chunk > 0, ring.freeSpace >= chunk else { return false }
        pausedBytes.store(0, ordering: .releasing)
        return true
    }

    func receiveHead(_ head: MediaResponseHead) {
        headers = ResponseHeaders(head)
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> MediaBodyAnswer {
        // The flag is raised before the version is read, and the input thread stores the
        // version before it clears the flag: if this reads a version already superseded, the
        // input thread's exchange sees the flag and resumes. A raised flag it takes while this
        // goes on (no command after all) costs one harmless resume.
        heldForCommand.store(true, ordering: .sequentiallyConsistent)
        if commandWaiting(seenCommands.load(ordering: .sequentiallyConsistent)) {
            // Nothing of these bytes is taken: libcurl hands them again if the transfer goes on.
            return .pause
        }
        heldForCommand.store(false, ordering: .sequentiallyConsistent)
        guard !writeBody(bytes) else { return .take }
        wake.signal()
        return .pause
    }

    func receiveEnd(_ end: MediaTransferEnd) {
        ending.withEngineLock { $0 = end }
        wake.signal()
    }

    /// Writes a body chunk into the ring.
    /// - Returns: `false` when it did not fit (none of it is taken then; the transfer pauses).
    private func writeBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if !sawBody {
            sawBody = true
            if let metadataInterval, metadataInterval > 0 {
                demuxer = ICYDemuxer(interval: metadataInterval)
                scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
            }
            if offset > 0 && statusCode == 200 && requestsRange {
                // The server ignored the Range header: skip up to where we asked to start.
                prefixToSkip = offset
            } else if statusCode == 206, requestsRange, let range = headers.contentRange, range.lowerBound != offset {
                // A Range answer from elsewhere than asked (a server that rounds ranges to its
                // blocks): from before, skip to the byte asked for; one that begins after it,
                // or ends before it, lacks bytes.
                if range.contains(offset) {
                    prefixToSkip = offset - range.lowerBound
                } else {
                    misplacedEnd.store(range.upperBound, ordering: .relaxed)
                    misplacedStart.store(range.lowerBound, ordering: .releasing)
                    wake.signal()
                }
            }
            onFirstBody?(self)
        }
        // Bytes past a gap are never taken; the input thread ends the transfer.
        if misplacedStart.load(ordering: .relaxed) >= 0 { return true }
        var body = bytes
        if prefixToSkip > 0 {
            let skipped = min(prefixToSkip, body.count)
            prefixToSkip -= skipped
            body = UnsafeRawBufferPointer(rebasing: body[skipped...])
            if body.isEmpty { return true }
        }
        if demuxer != nil {
            let taken = receiveICY(body)
            // As below: a paused chunk comes again whole, skipped prefix included.
            if !taken { prefixToSkip += bytes.count - body.count }
            return taken
        }
        guard ring.write(body) else {
            pausedBytes.store(body.count, ordering: .releasing)
            // curl hands the same bytes again once resumed, skipped prefix included.
            prefixToSkip += bytes.count - body.count
            return false
        }
        deliveredBytes.wrappingAdd(body.count, ordering: .releasing)
        return true
    }

    /// Strips ICY metadata out of `body`. The demuxer's state only advances when the audio fits
    /// in the ring: after a pause the transport hands the same bytes again.
    /// - Returns: `false` when the audio did not fit (nothing is taken).
    private func receiveICY(_ body: UnsafeRawBufferPointer) -> Bool {
        guard var next = demuxer, let scratch else { return true }
        if scratch.count < body.count {
            self.scratch?.deallocate()
            self.scratch = .allocate(byteCount: body.count, alignment: 16)
            return receiveICY(body)
        }
        var found: [StreamMetadata] = []
        let audio = next.process(body, audio: scratch) { found.append($0) }
        guard ring.write(UnsafeRawBufferPointer(rebasing: scratch[..<audio])) else {
            pausedBytes.store(audio, ordering: .releasing)
            return false
        }
        demuxer = next
        deliveredBytes.wrappingAdd(audio, ordering: .releasing)
        if !found.isEmpty {
            foundMetadata.withEngineLock { $0.append(contentsOf: found) }
            wake.signal()
        }
        return true
    }
}
