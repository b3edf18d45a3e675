/// The decoder of one play: libmpg123 until the sniffer recognises another container, then
/// FFmpeg's.
///
/// The session makes it before a byte has arrived and hands it to everything that decodes; the
/// sniffer's verdict swaps what it forwards to (``choose(_:)``), so the decode loop never holds
/// a decoder that goes stale. Confined to the decoder thread.
final class DecoderChoice: AudioDecoder {
    private(set) var current: any AudioDecoder
    /// Told before the choice is made, and passed on to the decoder chosen.
    private var inputLength: Int?
    /// ReplayGain values of a tag in front of the stream, passed on to the decoder chosen.
    private var tagReplayGain: ReplayGainValues?

    init(_ initial: any AudioDecoder) {
        current = initial
    }

    /// Decodes with `decoder` from now on.
    func choose(_ decoder: any AudioDecoder) {
        current = decoder
        if let inputLength { decoder.setInputLength(inputLength) }
        if let tagReplayGain { decoder.useReplayGain(fromTag: tagReplayGain) }
    }

    var format: AudioFormat? { current.format }
    var totalFrames: Int? { current.totalFrames }
    var bytesPerSecond: Int? { current.bytesPerSecond }
    var samplesPerFrame: Int? { current.samplesPerFrame }
    var preferredBufferSize: Int { current.preferredBufferSize }
    var searchesForFrames: Bool { current.searchesForFrames }
    var tags: StreamMetadata? { current.tags }
    var inputPosition: Int { current.inputPosition }
    var replayGain: ReplayGainAdjustment? { current.replayGain }

    func useReplayGain(fromTag values: ReplayGainValues) {
        tagReplayGain = values
        current.useReplayGain(fromTag: values)
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(PlayerError) { try current.feed(bytes) }
    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep {
        try current.decode(into: buffer)
    }
    func setInputLength(_ bytes: Int) {
        inputLength = bytes
        current.setInputLength(bytes)
    }
    func seek(toFrame frame: Int) throws(PlayerError) -> (frame: Int, inputOffset: Int?)? {
        try current.seek(toFrame: frame)
    }
    func restart(atByte byteOffset: Int, frame: Int) throws(PlayerError) {
        try current.restart(atByte: byteOffset, frame: frame)
    }
}
