// The decoder thread's bookkeeping for one play.

extension PlaybackSession {
    /// The decoder thread's own bookkeeping, confined to it.
    ///
    /// A class, so that a decoder reading its input through ``InputPump`` and the decode loop
    /// share one.
    final class DecodeState {
        /// Feeds a decoder that reads its input itself; made with the state, held by the loop.
        weak var pump: InputPump?
        var generation = 1
        /// Absolute byte offset of the next ring byte of this generation.
        var inputPosition = 0
        /// Input is read and thrown away up to this offset (seek without a Range request).
        var skipTo: Int?
        /// The input offsets of the bytes the feed buffer holds from its start: those of the
        /// last read. Where the bytes a decoder was fed but did not decode are found again when
        /// it ends before the input does.
        var inputBufferHolds: Range<Int>?
        /// Bytes handed to the decoder.
        var bytesFed = 0
        /// The input's first bytes, held while ``ContentSniffer`` decides what they are; `nil`
        /// once decided.
        var sniffed: [UInt8]? = []
        var infoApplied = false
        /// The ID3v2 tag's names, held until the first audio to be reported with the others.
        var heldTags: StreamMetadata?
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
        var recoveries = 0
        /// The sink was opened (see ``attach(format:state:)``).
        var attached = false
        var nearingEndReported = false
        /// The format the sink was opened with.
        var format: AudioFormat?
        /// Decoded audio before this frame is dropped (a seek that started at a segment's start).
        var discardBeforeFrame: Int?
        /// The discontinuity the decoder last started afresh at.
        var passedDiscontinuity: Int?
        /// How fast the current transfer (this generation's) brings its bytes, which tells a
        /// rebuffer how much to refill. The time is the input's: ``PlayerConfiguration/clock``.
        var transferRate = TransferRateMeter()
    }
}
