import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The bytes libavformat reads: an `AVIOContext` whose read and seek callbacks take from the
/// bytes the session feeds, and ask the session (``DecoderInputPump``) for more or for another
/// position when those run out.
///
/// libcurl stays the only network stack: libavformat never opens a URL. A seek outside the
/// bytes held becomes the session's Range restart (or a read forward), so an MP4 whose index
/// follows its media data is read as mpv reads it: the index by a Range request, then the
/// media from its start, without downloading the whole file.
///
/// Confined to the decoder thread, as the format context that uses it.
final class AVIOBridge {
    /// Bytes fed and not yet read, from `heldStart` on; read up to `readIndex`.
    private var held: [UInt8] = []
    private var readIndex = 0
    /// The resource offset of `held[0]`.
    private var heldStart = 0
    /// Where the current stream ends within `held`, once the session said a new one begins
    /// there (an HLS discontinuity): reads stop at it with an end of file.
    private(set) var streamEnd: Int?
    private(set) var interrupted = false
    private(set) var inputFailed = false
    private(set) var inputEnded = false
    unowned(unsafe) let pump: any DecoderInputPump
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    /// Sees every byte libavformat reads, with its offset (an Ogg stream's pages).
    var watcher: OggChainWatcher?

    /// libavformat's read size; it buffers this much ahead of the demuxer.
    private static let bufferSize = 32 * 1024
    /// Consumed bytes kept for short seeks back (a demuxer re-reading a header) before the
    /// queue is compacted.
    private static let keptBehind = 64 * 1024

    init(pump: any DecoderInputPump) {
        self.pump = pump
    }

    deinit { close() }

    /// The resource offset the next read returns.
    var position: Int { heldStart + readIndex }

    /// Bytes from the session.
    func append(_ bytes: UnsafeRawBufferPointer) {
        held.append(contentsOf: bytes)
    }

    /// The bytes fed from now on start a new stream at `offset`: the current one ends where the
    /// bytes fed so far end.
    func endStreamHere() {
        streamEnd = held.count
    }

    /// Drops everything held and starts over at `offset` (a seek, a new stream).
    func reset(at offset: Int) {
        if let streamEnd {
            // The next stream's bytes, fed after the marker, are kept.
            held.removeFirst(min(streamEnd, held.count))
            self.streamEnd = nil
        } else {
            held.removeAll(keepingCapacity: true)
        }
        readIndex = 0
        heldStart = offset
        interrupted = false
        inputFailed = false
        inputEnded = false
    }

    /// Whether the demuxer was told it may seek (see ``open(rereading:)``).
    private(set) var seekable = false

    /// Opens the AVIO context; seekable when the input is.
    /// - Parameter rereading: the container may need to read past its media before playing it
    ///   (an MP4 whose index follows its media): an input of known length that takes no Range
    ///   requests is then seekable too, forward by reading on and dropping, backward by a new
    ///   request from the start. Memory stays bounded; the price is reading the media twice.
    func open(rereading: Bool = false) throws(PlayerError) -> UnsafeMutablePointer<AVIOContext> {
        close()
        guard let buffer = sp_av_malloc(Self.bufferSize) else { throw .decodingFailed(reason: "out of memory") }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let seekable = pump.inputIsSeekable || (rereading && pump.inputLength != nil)
        self.seekable = seekable
        guard let context = sp_avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.bufferSize), 0, opaque,
            { opaque, buffer, size in
                Unmanaged<AVIOBridge>.fromOpaque(opaque!).takeUnretainedValue().read(into: buffer!, size: Int(size))
            },
            nil,
            seekable ? { opaque, offset, whence in
                Unmanaged<AVIOBridge>.fromOpaque(opaque!).takeUnretainedValue().seek(to: offset, whence: whence)
            } : nil)
        else {
            sp_av_free(buffer)
            throw .decodingFailed(reason: "out of memory")
        }
        context.pointee.seekable = seekable ? AVIO_SEEKABLE_NORMAL : 0
        // libavformat counts from the context's `pos`, 0 for a new context; this bridge counts
        // resource offsets. A stream opened past the resource's start (after an ID3v2 tag in
        // front, at a new HLS stream) would otherwise seek by its own count to the wrong byte.
        context.pointee.pos = Int64(position)
        self.context = context
        return context
    }

    /// Frees the AVIO context (after the format context using it is closed).
    func close() {
        guard context != nil else { return }
        sp_av_freep(&context!.pointee.buffer)
        sp_avio_context_free(&context)
    }

    /// A command interrupted a read; the demuxer's failure that followed was this.
    func clearInterrupt() { interrupted = false }

    private var readable: Int { (streamEnd ?? held.count) - readIndex }

    private func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int) -> Int32 {
        while readable == 0 {
            if streamEnd != nil || inputEnded { return sp_averror_eof() }
            if interrupted { return sp_averror_exit() }
            if inputFailed { return sp_averror(EIO) }
            switch pump.pumpInput() {
            case .fed: continue
            case .ended: inputEnded = true
            case .interrupted: interrupted = true
            case .failed: inputFailed = true
            }
        }
        let count = min(size, readable)
        held.withUnsafeBytes { held in
            UnsafeMutableRawPointer(buffer).copyMemory(from: held.baseAddress! + readIndex, byteCount: count)
        }
        watcher?.observe(UnsafeRawBufferPointer(start: buffer, count: count), at: position)
        readIndex += count
        if readIndex > Self.keptBehind * 2 {
            let drop = readIndex - Self.keptBehind
            held.removeFirst(drop)
            readIndex -= drop
            heldStart += drop
            if let streamEnd { self.streamEnd = streamEnd - drop }
        }
        return Int32(count)
    }

    private func seek(to offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 {
            return pump.inputLength.map(Int64.init) ?? Int64(sp_averror(ENOSYS))
        }
        let target: Int
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = Int(offset)
        case SEEK_CUR: target = position + Int(offset)
        case SEEK_END:
            guard let length = pump.inputLength else { return Int64(sp_averror(ENOSYS)) }
            target = length + Int(offset)
        default: return Int64(sp_averror(EINVAL))
        }
        guard target >= 0 else { return Int64(sp_averror(EINVAL)) }
        if target >= heldStart, target <= heldStart + (streamEnd ?? held.count) {
            readIndex = target - heldStart
            return Int64(target)
        }
        guard streamEnd == nil else { return Int64(sp_averror(EINVAL)) }
        held.removeAll(keepingCapacity: true)
        readIndex = 0
        heldStart = target
        inputEnded = false
        inputFailed = false
        pump.repositionInput(to: target)
        return Int64(target)
    }
}
