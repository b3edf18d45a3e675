/// Removes what a packed-audio HLS segment carries in front of its frames.
///
/// Segments are cut from one stream, but a segmenter may give each its own ID3v2 tag (HLS packed
/// audio carries its timestamp in one) and its own Xing/Info frame. Fed to the decoder as one
/// stream, a tag in the middle is junk and an Info frame is a frame of silence, a gap at every
/// join: both are dropped here, so the decoder sees the frames alone. The Info frame also
/// describes only its own segment, so even the first one would mislead the decoder about the
/// stream's length. Segments in a container (MPEG-TS, fragmented MP4) and ADTS frames pass as
/// they are, but for a tag in front: their demuxer reads them as one stream.
struct SegmentHeaderFilter {
    private enum Phase {
        /// Collecting the first bytes of the segment (or of what follows a tag) to decide.
        case head
        /// Dropping a tag or a header frame: this many bytes more.
        case skipping(Int)
        /// Frames: everything passes.
        case passing
    }

    private var phase = Phase.head
    private var head: [UInt8] = []

    /// Bytes looked at before deciding: an MPEG-TS packet and the next sync byte.
    private static let headLength = 189

    init() {
        head.reserveCapacity(Self.headLength)
    }

    /// Passes the frames in `bytes` to `emit`, dropping tags and header frames.
    /// - Returns: `false` when `emit` did (the transfer is to stop).
    mutating func process(_ bytes: UnsafeRawBufferPointer,
                          emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            switch phase {
            case .passing:
                return emit(rest)
            case .skipping(let count):
                let dropped = min(count, rest.count)
                rest = UnsafeRawBufferPointer(rebasing: rest[dropped...])
                phase = count == dropped ? .head : .skipping(count - dropped)
            case .head:
                let taken = min(Self.headLength - head.count, rest.count)
                head.append(contentsOf: rest[..<taken])
                rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
                if head.count >= Self.headLength {
                    guard decide(final: false, emit: emit) else { return false }
                }
            }
        }
        return true
    }

    /// The segment ended: decides on what is still held (a segment shorter than the look-ahead).
    mutating func finish(emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard case .head = phase, !head.isEmpty else { return true }
        return decide(final: true, emit: emit)
    }

    /// Judges the held bytes: a tag or header frame to skip, or frames (or a container) to pass.
    private mutating func decide(final: Bool, emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        if let tagSize = head.withUnsafeBytes({ ContentSniffer.id3v2TagSize($0) }) {
            return skip(tagSize, emit: emit, final: final)
        }
        if !Self.isContainerOrADTS(head), let frameSize = Self.headerFrameSize(head) {
            return skip(frameSize, emit: emit, final: final)
        }
        phase = .passing
        let held = head
        head.removeAll(keepingCapacity: true)
        return held.withUnsafeBytes { emit($0) }
    }

    /// Drops `count` bytes from the front, then goes on deciding with what follows.
    private mutating func skip(_ count: Int, emit: (UnsafeRawBufferPointer) -> Bool, final: Bool) -> Bool {
        let held = head
        head.removeAll(keepingCapacity: true)
        phase = count > held.count ? .skipping(count - held.count) : .head
        guard count < held.count else { return true }
        let remainder = Array(held[count...])
        if final {
            head = remainder
            return finish(emit: emit)
        }
        return remainder.withUnsafeBytes { process($0, emit: emit) }
    }

    /// Whether the segment is a container or ADTS AAC, recognised by its first bytes (a segment
    /// starts on a frame boundary, so one ADTS header there is enough): no MPEG header frame to
    /// look for.
    private static func isContainerOrADTS(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { bytes in
            MediaSignature.recognise(bytes) != nil || ADTSFrameHeader(bytes) != nil
        }
    }

    /// The size of a Layer III frame at the front that holds a Xing, Info or VBRI header.
    private static func headerFrameSize(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { MPEGAudioFrameHeader.headerFrameLength(atStartOf: $0) }
    }
}
