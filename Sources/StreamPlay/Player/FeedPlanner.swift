/// What the decoder thread does with the input's next bytes before it reads them: drop them (the
/// rest of a skip past an ID3v2 tag), start the decoder afresh where a new stream begins (an
/// HLS discontinuity), or read, stopping short of the next such boundary so that the bytes of
/// two streams never reach the decoder in one read. A pure decision, tested with no input.
enum FeedPlanner {
    /// The next step with the input's bytes.
    enum Step: Equatable, Sendable {
        /// Drop up to `count` bytes, the rest of the way to where decoding goes on (none when
        /// the input is there already: the skip is then over).
        case skip(count: Int)
        /// Read up to `limit` bytes into the decoder. With `restartingDecoderAt`, a new stream
        /// begins at that byte, where the input stands: the decoder starts afresh there first.
        case read(limit: Int, restartingDecoderAt: Int?)
    }

    /// The step for the input at `inputPosition`.
    /// - Parameters:
    ///   - inputPosition: the offset of the next byte the ring gives.
    ///   - skipTo: the byte decoding goes on from, when the input is short of it.
    ///   - discontinuity: the first boundary between two streams at or after `inputPosition`.
    ///   - passedDiscontinuity: the boundary the decoder last started afresh at.
    ///   - bufferSize: the most one read takes.
    static func next(inputPosition: Int, skipTo: Int?, discontinuity: Int?, passedDiscontinuity: Int?,
                     bufferSize: Int) -> Step {
        if let skipTo { return .skip(count: skipTo - inputPosition) }
        guard let boundary = discontinuity else { return .read(limit: bufferSize, restartingDecoderAt: nil) }
        if boundary == inputPosition {
            // Everything before the new stream is decoded (the decoder asked for more): its
            // format and its first frames are taken as new, once.
            return .read(limit: bufferSize, restartingDecoderAt: passedDiscontinuity == boundary ? nil : boundary)
        }
        if boundary > inputPosition { return .read(limit: min(bufferSize, boundary - inputPosition), restartingDecoderAt: nil) }
        return .read(limit: bufferSize, restartingDecoderAt: nil)
    }
}
