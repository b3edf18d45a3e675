/// Decides what an input holds from its first bytes, before any decoder sees them.
///
/// The decoder is chosen by content, never by a file name or by one sync word: an ID3v2 tag,
/// a container's signature, or a chain of frames whose headers agree. A lone `0xFFE` sync word
/// proves nothing (it turns up in MP4, AAC and random data), and taking one for MPEG audio is
/// how an M4A once played as noise and ended in success.
///
/// Pure: it looks at bytes and answers, and is tested and fuzzed without I/O.
enum ContentSniffer {
    /// What the bytes are.
    enum Content: Equatable, Sendable {
        /// An ID3v2 tag of `size` bytes (header and footer included) comes first; what follows
        /// it decides.
        case id3v2Tag(size: Int)
        /// MPEG audio frames, the first at `offset` (junk before it is the decoder's to skip).
        case mpegAudio(offset: Int)
        /// A format recognised by its signature or its frames, which the MPEG decoder cannot play.
        case foreign(MediaSignature)
        /// Text where audio should be (a web page, JSON, a playlist), named by how it starts.
        case text(String)
    }

    enum Verdict: Equatable, Sendable {
        case decided(Content)
        /// Not enough bytes yet to tell.
        case needMore
        /// The input is complete, or as long as the caller waits, and nothing was recognised.
        case unrecognised
    }

    /// Consecutive agreeing MPEG frame headers that count as MPEG audio.
    static let mpegChainLength = 4
    /// Consecutive agreeing ADTS frame headers that count as AAC.
    static let adtsChainLength = 3
    /// In a complete input shorter than a chain, this many agreeing frames that run to its end
    /// count too (a very short file).
    static let shortInputChainLength = 2

    /// Judges `bytes`, the first of an input.
    /// - Parameter isComplete: no more bytes will come (the input ended, or the caller has
    ///   waited long enough): undecided becomes ``Verdict/unrecognised``.
    static func sniff(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> Verdict {
        if bytes.count < 10, !isComplete { return .needMore }
        if let size = id3v2TagSize(bytes) { return .decided(.id3v2Tag(size: size)) }
        if let marker = textMarker(bytes) { return .decided(.text(marker)) }
        if let signature = MediaSignature.recognise(bytes) { return .decided(.foreign(signature)) }
        if bytes.count < MediaSignature.lookahead, !isComplete { return .needMore }
        return scanForFrames(bytes, isComplete: isComplete)
    }

    /// Where a decoder that ended before its input did should take up `rest`: the bytes it was
    /// fed but did not decode, when they hold more MPEG audio (the next part of MP3s joined with
    /// `cat`, whose first part's LAME tag ended the decoder). Past an ID3v2 tag in front, the
    /// first chain of agreeing frames counts as for an input's first bytes; a Xing or Info frame
    /// there, which describes that part alone, is skipped as a frame of silence. `nil` when
    /// `rest` holds no audio: a trailing ID3v1 or APE tag, or junk, ends the track.
    static func audioStart(inRest rest: UnsafeRawBufferPointer) -> Int? {
        var start = id3v2TagSize(rest) ?? 0
        guard start < rest.count,
              case .decided(.mpegAudio(let offset)) = scanForFrames(UnsafeRawBufferPointer(rebasing: rest[start...]),
                                                                   isComplete: true) else { return nil }
        start += offset
        if let header = MPEGAudioFrameHeader.headerFrameLength(atStartOf: UnsafeRawBufferPointer(rebasing: rest[start...])),
           start + header < rest.count {
            start += header
        }
        return start
    }

    /// The size of an ID3v2 tag at the start of `bytes`, header and footer included.
    static func id3v2TagSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33, // "ID3"
              bytes[3] != 0xFF, bytes[4] != 0xFF,
              bytes[6..<10].allSatisfy({ $0 < 0x80 }) else { return nil }
        let size = bytes[6..<10].reduce(0) { ($0 << 7) | Int($1) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }

    /// How text starts, when `bytes` start as text a server sends instead of audio.
    private static func textMarker(_ bytes: UnsafeRawBufferPointer) -> String? {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 } // UTF-8 BOM
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let head = String(decoding: bytes[start..<min(start + 16, bytes.count)], as: UTF8.self).lowercased()
        return textMarkers.first { head.hasPrefix($0) }
    }

    private static let textMarkers = ["<!doctype", "<html", "<?xml", "<head", "<body", "{\"", "#extm3u", "[playlist]"]

    /// Finds the first chain of agreeing MPEG audio or ADTS frames.
    private static func scanForFrames(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> Verdict {
        var offset = 0
        while offset + 4 <= bytes.count {
            defer { offset += 1 }
            guard bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { continue }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch mpegChain(rest, isComplete: isComplete) {
            case .confirmed: return .decided(.mpegAudio(offset: offset))
            case .undetermined: return .needMore
            case .broken: break
            }
            switch adtsChain(rest, isComplete: isComplete) {
            case .confirmed: return .decided(.foreign(.adts))
            case .undetermined: return .needMore
            case .broken: break
            }
        }
        return isComplete ? .unrecognised : .needMore
    }

    private enum Chain { case confirmed, broken, undetermined }

    private static func mpegChain(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> Chain {
        chain(bytes, length: mpegChainLength, isComplete: isComplete,
              parse: { MPEGAudioFrameHeader($0) }, frameLength: \.frameLength, agree: { $0.agrees(with: $1) })
    }

    private static func adtsChain(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> Chain {
        chain(bytes, length: adtsChainLength, isComplete: isComplete,
              parse: { ADTSFrameHeader($0) }, frameLength: \.frameLength, agree: { $0.agrees(with: $1) })
    }

    /// Follows frames from the start of `bytes` while their headers agree with the first.
    private static func chain<Header>(_ bytes: UnsafeRawBufferPointer, length: Int, isComplete: Bool,
                                      parse: (UnsafeRawBufferPointer) -> Header?, frameLength: (Header) -> Int,
                                      agree: (Header, Header) -> Bool) -> Chain {
        let headerBytes = 7
        guard let first = parse(bytes) else { return bytes.count < headerBytes && !isComplete ? .undetermined : .broken }
        var count = 1
        var offset = frameLength(first)
        while count < length {
            if offset >= bytes.count || (offset + headerBytes > bytes.count && parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])) == nil) {
                // The data ends within the chain: a complete input may end on a frame boundary.
                guard isComplete else { return .undetermined }
                return offset == bytes.count && count >= shortInputChainLength ? .confirmed : .broken
            }
            guard let next = parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])), agree(first, next) else {
                return .broken
            }
            count += 1
            offset += frameLength(next)
        }
        return .confirmed
    }
}
