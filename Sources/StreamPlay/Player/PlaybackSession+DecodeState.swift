// The decoder thread's bookkeeping for one play.

extension PlaybackSession {
    /// The decoder thread's own bookkeeping, confined to it.
    ///
    /// A class, so that a decoder reading its input through ``InputPump`` and the decode loop
    /// share one. The input side is its ``DecoderFeed``.
    final class DecodeState {
        /// The decoder's input side.
        let feed: DecoderFeed
        var infoApplied = false
        /// The thread reading an ID3v1 tag by a Range request, beside the playback; joined
        /// before the track's end is reported.
        var trailingTagReader: EngineThread?
        /// The next audio chunk starts the timeline anew (after a seek).
        var rebase = true
        var endFrame: Int?
        var durationReported = false
        /// A seek is searching inside a decoder that reads its input itself: libavformat's
        /// bisection of a FLAC without a seek table or of an Ogg, one Range restart per step.
        /// The audio still queued may run out meanwhile; that must not start a rebuffer, whose
        /// refill every step of the search would then wait for. ``land(at:format:state:)``
        /// flushes the sink and starts output over once the search is done.
        var searching = false
        /// The sink was opened (see ``attach(format:state:)``).
        var attached = false
        var nearingEndReported = false
        /// The state machine's output gate as this thread last saw it: read with each turn, and
        /// kept as each of this thread's events leaves it (``decide(updating:_:)``). Only this
        /// thread's events change the gate, so the copy holds without a lock for every chunk.
        var output = OutputGate()
        /// The format the sink was opened with.
        var format: AudioFormat?
        /// Decoded audio before this frame is dropped (a seek that started at a segment's start).
        var discardBeforeFrame: Int?

        init(feed: DecoderFeed) {
            self.feed = feed
        }
    }
}
