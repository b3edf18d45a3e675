/// How the decoder thread gets past an ID3v2 tag in front of the audio: pure decisions from
/// the tag's size and what the input holds, tested with no input.
///
/// The tag is skipped, never fed: mpg123 would hold all of it in memory, and its size (up to
/// 256 MiB) comes from the network. What follows it is sniffed in turn.
enum LeadingTagPlanner {
    /// Whether to wait for more bytes before reading the tag: one no bigger than the largest
    /// picture kept (``Artwork/maximumSize``) is read whole, for its cover and track number may
    /// come after the bytes at hand. A bigger one is read from the part held (text frames lead).
    /// - Parameters:
    ///   - tagSize: the tag's size, header included.
    ///   - held: bytes held for sniffing, from the tag's start.
    ///   - inputEnded: the input has ended and nothing more will come.
    static func waitsForWholeTag(tagSize: Int, held: Int, inputEnded: Bool) -> Bool {
        tagSize > held && tagSize <= Artwork.maximumSize && !inputEnded
    }

    /// The way past a tag, once it was read.
    enum WayPast: Equatable, Sendable {
        /// The tag ends within the bytes held: sniff those from this index on.
        case sniffHeld(from: Int)
        /// The tag ends beyond what the ring holds, and the input can seek: a new request from
        /// the tag's end, this byte.
        case restartInput(at: Int)
        /// Read on and drop bytes up to the tag's end, this byte.
        case skip(to: Int)
    }

    /// The way past a tag of `tagSize` bytes (header included) that starts at byte `tagStart`.
    /// - Parameters:
    ///   - held: bytes held for sniffing, from `tagStart`.
    ///   - inputPosition: the offset of the next byte in the ring, after the bytes held.
    ///   - buffered: bytes in the ring from there.
    ///   - supportsRanges: whether the input can restart at any byte.
    static func wayPast(tagSize: Int, tagStart: Int, held: Int, inputPosition: Int, buffered: Int,
                        supportsRanges: Bool) -> WayPast {
        if tagSize <= held { return .sniffHeld(from: tagSize) }
        let tagEnd = tagStart + tagSize
        if supportsRanges, tagEnd - inputPosition > buffered { return .restartInput(at: tagEnd) }
        return .skip(to: tagEnd)
    }
}
