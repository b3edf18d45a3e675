import FoundationEssentials
import CCurl
import CStreamPlayShim

/// One HTTP(S) request of a ``CurlInputSource``: the easy handle and what its callbacks learn.
///
/// The callbacks run on the input thread inside `curl_multi_perform`. The transfer is handed to
/// them as an unretained pointer; the source keeps it alive until the easy handle is cleaned up.
final class CurlTransfer {
    private let easy: CurlEasy
    /// The easy handle, for the input thread's multi handle.
    var handle: UnsafeMutableRawPointer { easy.handle }
    let offset: Int
    let generation: Int
    let ring: ByteRing
    /// Whether a Range was asked for (`false` when resuming a live stream).
    let requestsRange: Bool

    /// Bytes of the current response block's headers we care about.
    /// The headers of the current response.
    private(set) var headers = ResponseHeaders()
    private var statusCode: Int {
        get { headers.statusCode }
        set { headers.statusCode = newValue }
    }
    private var acceptsRanges: Bool { headers.acceptsRanges }
    private var contentRangeTotal: Int? { headers.contentRangeTotal }
    /// Seconds from a Retry-After header (delta form), if the response had one.
    var retryAfter: Double? { headers.retryAfter }
    /// Body bytes still to throw away (a server that ignored our Range and sent the whole body).
    private var prefixToSkip = 0
    private var sawBody = false
    /// Size of the chunk curl holds while paused; resume once that much is free.
    private(set) var pausedChunk = 0
    /// Body bytes delivered to the ring.
    private(set) var delivered = 0
    /// Set by the source once headers were published.
    var infoPublished = false
    /// Set by the source for a reconnect after a drop.
    var isReconnect = false
    var onFirstBody: ((CurlTransfer) -> Void)?
    /// Whether a command (a restart or a stop) waits for the input thread. The write callback
    /// then pauses the transfer, so that `curl_multi_perform` returns at once rather than read
    /// on (up to libcurl's hundred buffers in one call) a response about to be dropped: a
    /// bisection seek restarts the input at every step, and each step waited for that before.
    /// Nil: never (set by the source).
    var control: InputControl?
    /// The command version the input thread saw last (``InputControl/takeCommands(since:)``),
    /// kept up to date by the source on every turn: a version it has taken, even one that
    /// carried no command it acts on, must not keep the transfer paused.
    var commandsSeen = 0

    /// ICY metadata found in the stream, handed over on the input thread.
    var onMetadata: ((StreamMetadata) -> Void)?
    /// Interval of in-band metadata (`icy-metaint`), when the server sends it.
    var metadataInterval: Int? { headers.metadataInterval }
    private var demuxer: ICYDemuxer?
    /// Audio separated from metadata, before it goes to the ring.
    private var scratch: UnsafeMutableRawBufferPointer?

    /// - Parameter requestRange: `false` to resume a live stream: no Range header, and the
    ///   bytes that arrive simply continue the stream.
    init?(url: String, offset: Int, generation: Int, ring: ByteRing, configuration: PlayerConfiguration,
          requestRange: Bool = true) {
        // Radio servers send song titles in-band only when asked.
        guard let easy = CurlEasy(url: url, configuration: configuration, leadingHeaders: [("Icy-MetaData", "1")]) else {
            return nil
        }
        self.easy = easy
        self.offset = offset
        self.generation = generation
        self.requestsRange = requestRange
        self.ring = ring

        if offset > 0 && requestRange { easy.requestRange(from: offset) }

        let context = Unmanaged.passUnretained(self).toOpaque()
        sp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        sp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        sp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        sp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
    }

    deinit {
        scratch?.deallocate()
    }

    /// Content-Type of the final response.
    var contentType: String? {
        var value: UnsafePointer<CChar>?
        guard sp_curl_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// Content-Length of the final response, or -1.
    var contentLength: Int {
        var value: curl_off_t = -1
        sp_curl_getinfo_offset(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &value)
        return Int(value)
    }

    /// The HTTP status of the last response (after redirects).
    var responseCode: Int {
        var value = 0
        sp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &value)
        return value
    }

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

    /// Resumes a transfer paused for lack of ring space, if there is room now.
    /// Must run on the input thread; curl may call the write callback again before returning.
    func resumeIfSpace() -> Bool {
        guard pausedChunk > 0, ring.freeSpace >= pausedChunk else { return false }
        pausedChunk = 0
        curl_easy_pause(handle, sp_curl_pause_continue)
        return true
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let control, control.hasCommands(since: commandsSeen) {
            // Nothing of these bytes is taken: curl hands them again if the transfer goes on.
            pausedChunk = max(bytes.count, 1)
            return sp_curl_writefunc_pause
        }
        if !sawBody {
            sawBody = true
            statusCode = responseCode
            if let metadataInterval, metadataInterval > 0 {
                demuxer = ICYDemuxer(interval: metadataInterval)
                scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
            }
            if offset > 0 && statusCode == 200 && requestsRange {
                // The server ignored the Range header: skip up to where we asked to start.
                prefixToSkip = offset
            }
            onFirstBody?(self)
        }
        var body = bytes
        if prefixToSkip > 0 {
            let skipped = min(prefixToSkip, body.count)
            prefixToSkip -= skipped
            body = UnsafeRawBufferPointer(rebasing: body[skipped...])
            if body.isEmpty { return bytes.count }
        }
        if demuxer != nil {
            let consumed = receiveICY(body, whole: bytes.count)
            // As below: a paused chunk comes again whole, skipped prefix included.
            if consumed == sp_curl_writefunc_pause { prefixToSkip += bytes.count - body.count }
            return consumed
        }
        guard ring.write(body) else {
            pausedChunk = body.count
            // curl hands the same bytes again once resumed, skipped prefix included.
            prefixToSkip += bytes.count - body.count
            return sp_curl_writefunc_pause
        }
        delivered += body.count
        return bytes.count
    }

    /// Strips ICY metadata out of `body`. The demuxer's state only advances when the audio fits
    /// in the ring: after a pause curl hands the same bytes again.
    private func receiveICY(_ body: UnsafeRawBufferPointer, whole: Int) -> Int {
        guard var next = demuxer, let scratch else { return whole }
        if scratch.count < body.count {
            self.scratch?.deallocate()
            self.scratch = .allocate(byteCount: body.count, alignment: 16)
            return receiveICY(body, whole: whole)
        }
        var found: [StreamMetadata] = []
        let audio = next.process(body, audio: scratch) { found.append($0) }
        guard ring.write(UnsafeRawBufferPointer(rebasing: scratch[..<audio])) else {
            pausedChunk = audio
            return sp_curl_writefunc_pause
        }
        demuxer = next
        delivered += audio
        for metadata in found { onMetadata?(metadata) }
        return whole
    }

    private func receiveHeader(_ bytes: UnsafeRawBufferPointer) {
        guard let line = String(bytes: bytes, encoding: .isoLatin1) else { return }
        headers.consume(line)
    }
}
