/// How a decoded chunk goes into the sink: cut at the end of a requested length, and split where
/// the prebuffer is full, so that output starts between the two writes.
///
/// A sink that is not started yet and fills up blocks the write; were the whole chunk written
/// before output started, a chunk larger than the room left could block a sink that nothing
/// would ever start. Pure arithmetic on frames, tested on its own; ``TrackOutput`` writes the parts.
struct ChunkSplit: Sendable, Equatable {
    /// Bytes to write before output may start, `nil` once it has: they complete (or go
    /// towards) the prebuffer, and are counted as queued (``PlaybackStateMachine/framesQueued(_:)``).
    var prebuffer: Int?
    /// Bytes to write after them.
    var rest: Int
    /// The chunk reaches the end of the requested length: nothing after it is played.
    var reachesEnd: Bool
}

extension ChunkSplit {
    /// - Parameters:
    ///   - byteCount: the chunk's size, whole frames.
    ///   - bytesPerFrame: the format's frame size.
    ///   - framesToEnd: frames left before the end of a requested length, `nil` without one.
    ///   - framesBeforeStart: frames still to queue before output starts, `nil` once it has
    ///     (``OutputGate/framesBeforeStart``).
    init(byteCount: Int, bytesPerFrame: Int, framesToEnd: Int?, framesBeforeStart: Int?) {
        var count = byteCount
        reachesEnd = false
        if let framesToEnd {
            let remaining = max(framesToEnd, 0) * bytesPerFrame
            if remaining <= count {
                count = remaining
                reachesEnd = true
            }
        }
        prebuffer = framesBeforeStart.map { min($0 * bytesPerFrame, count) }
        rest = count - (prebuffer ?? 0)
    }
}
