/// Whether the server still takes a playing stream's audio. A stream the server accepted but
/// does not play (a PipeWire stream its session manager never linked to the sink, a sink
/// suspended under it, a server that stopped answering) would otherwise hold a write or a drain
/// for ever, the play silent and stuck; a stream that made no progress for the allowed time
/// while it was to play is treated by the sink as lost: made again, with what it had not
/// played written again (see ``PulseAudioSink``).
///
/// Progress is the server taking audio: a write it had room for, or its read index moving in
/// a timing update; an uncork or a new stream starts the clock again. Times are in
/// microseconds of `pa_rtclock_now()`. Pure logic: the sink keeps one under its mainloop lock.
struct PulseAudioStallWatch: Sendable {
    /// The time allowed without progress, in microseconds.
    let allowed: UInt64
    /// When the stream last made progress (or the clock was started again).
    private(set) var lastProgress: UInt64
    /// The server's read index in the last timing update seen for the stream; `nil` for a new
    /// stream, whose first update is progress only if the server read some of it already.
    private var lastReadIndex: Int64?

    /// A watch allowing `seconds` (at least 0.1 s) without progress, its clock started at `now`.
    init(seconds: Double, now: UInt64) {
        allowed = UInt64((seconds.isNaN ? 5 : min(max(seconds, 0.1), 86_400)) * 1_000_000)
        lastProgress = now
    }

    /// A new stream: nothing of its read index is known yet.
    mutating func restart(at now: UInt64) {
        lastReadIndex = nil
        lastProgress = now
    }

    /// The server took audio (a write had room), or the stream was uncorked.
    mutating func noteProgress(at now: UInt64) {
        lastProgress = now
    }

    /// Looks at the read and write indices of the stream's last timing update: the read
    /// index's move is progress, up to the write index. Past it, a read index counts time, not
    /// audio taken. A stream that PipeWire's pulse server held unplayed in two CI runs, asking
    /// no more audio of it, had its latency read negative (its position was the prebuffer
    /// written): most likely a read index moved on past what it was given, which the stall
    /// watch took for progress until it counted only up to the write index.
    /// - Returns: whether the server read some of the stream's audio since the last look.
    mutating func observe(readIndex rawReadIndex: Int64, writeIndex: Int64, at now: UInt64) -> Bool {
        let readIndex = min(rawReadIndex, writeIndex)
        defer { lastReadIndex = readIndex }
        guard let last = lastReadIndex else {
            // The first update of a stream: a read index past zero is audio already read.
            if readIndex > 0 { lastProgress = now }
            return readIndex > 0
        }
        guard readIndex != last else { return false }
        lastProgress = now
        return readIndex > last
    }

    /// When the stream will have gone the allowed time without progress.
    var due: UInt64 { lastProgress &+ allowed }

    /// Whether the stream has gone the allowed time without progress by `now`.
    func hasStalled(at now: UInt64) -> Bool {
        now >= due
    }
}
