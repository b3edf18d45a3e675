/// The decoder thread's own bookkeeping for one play, confined to it.
///
/// A class, so that the decode loop, ``TrackOutput`` and a decoder reading its input through
/// ``RingInputPump`` share one. The input side is its ``DecoderFeed``.
final class DecodeState {
    /// The decoder's input side.
    let feed: DecoderFeed
    var infoApplied = false
    /// The thread reading an ID3v1 tag by a Range request, beside the playback; joined
    /// before the track's end is reported.
    var trailingTagReader: EngineThread?
    /// The next audio chunk starts the timeline anew (after a seek).
    var rebase = true
    /// Where the requested length ends (an item's `length`), when one was asked for.
    var endFrame: Int?
    var durationReported = false
    /// A seek is searching inside a decoder that reads its input itself: libavformat's
    /// bisection of a FLAC without a seek table or of an Ogg, one Range restart per step.
    /// The audio still queued may run out meanwhile; that must not start a rebuffer, whose
    /// refill every step of the search would then wait for.
    /// ``DecodeLoop/land(at:format:state:)`` flushes the sink and starts output over once
    /// the search is done.
    var searching = false
    /// The sink was opened (see ``TrackOutput/open(format:state:)``).
    var attached = false
    var nearingEndReported = false
    /// The state machine's output gate as this thread last saw it: read with each turn, and
    /// kept as each of this thread's events leaves it
    /// (``PlaybackControl/decide(updating:_:)``). Only this thread's events change the gate,
    /// so the copy holds without a lock for every chunk.
    var output = OutputGate()
    /// The format being decoded: the sink's, once attached.
    var format: AudioFormat?
    /// Decoded audio before this frame is dropped (a seek that started at a segment's start).
    var discardBeforeFrame: Int?

    init(feed: DecoderFeed) {
        self.feed = feed
    }
}
