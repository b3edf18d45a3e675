/// What one decode call produced.
enum DecodeStep: Equatable {
    /// `byteCount` bytes of PCM were written to the buffer; their first frame is `firstFrame`
    /// counted from the start of the track.
    case audio(byteCount: Int, firstFrame: Int)
    /// The decoder needs more input before it can produce anything.
    case needMore
    /// The output format changes from here on; query ``AudioDecoder/format``.
    case formatChanged
    /// A new stream within the input (a chained Ogg stream) starts with the next audio, under
    /// new names; query ``AudioDecoder/tags``.
    case tagsChanged
    /// The stream declared its end.
    case finished
}

/// A decoder, fed bytes by the decoder thread and asked for PCM.
///
/// The decoder thread, the input sources, the ring and the sinks know only this protocol. Two
/// decoders conform: ``MPG123Decoder`` for MPEG audio, and ``FFmpegDecoder`` for every other
/// container and codec, which reads more input itself when it needs it (see
/// ``DecoderInputPump``). Every method is called on the decoder thread only.
protocol AudioDecoder: AnyObject {
    /// The PCM format of the audio decoded from here on, once the first frame was parsed.
    var format: AudioFormat? { get }
    /// Frames in the whole track, when headers (Xing/LAME/VBRI) or the input length tell.
    var totalFrames: Int? { get }
    /// The stream's bitrate in bytes per second, once a frame was read (of the last frame, for VBR).
    var bytesPerSecond: Int? { get }
    /// Samples per channel in one frame of the stream (1152 for MPEG-1 Layer III), once known.
    var samplesPerFrame: Int? { get }
    /// The track's names from its container's tags (Vorbis comments, MP4 `ilst`), once the
    /// container is read; `nil` when it has none or the decoder does not read tags.
    var tags: StreamMetadata? { get }
    /// The ReplayGain the decoder applies to its audio (see ``ReplayGainSettings``), known once
    /// the format is; `nil` when the settings turn it off or the track states no gain.
    var replayGain: ReplayGainAdjustment? { get }
    /// ReplayGain values from a tag the session read outside the decoder (an ID3v2 tag in front
    /// of the stream): they win over the decoder's own sources. Called before the first audio.
    func useReplayGain(fromTag values: ReplayGainValues)
    /// Bytes the caller's PCM buffer should hold: at least one frame's worth.
    var preferredBufferSize: Int { get }

    /// Hands over input bytes; the decoder keeps what it cannot use yet.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(PlayerError)
    /// Decodes into `buffer` as much as input allows.
    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep
    /// Tells the decoder the size of the whole input, for seeking and for a duration estimate.
    func setInputLength(_ bytes: Int)
    /// Whether the decoder searches its input for frames: it then resynchronises after damage
    /// when restarted past it, and must find a first frame within a bounded number of bytes.
    /// A demuxer reading a container (an MP4's index may be large) does neither.
    var searchesForFrames: Bool { get }
    /// Prepares to produce audio from `frame` on.
    /// - Returns: the frame audio will really start at, and the byte offset input must be fed
    ///   from next (`nil` when the decoder has already moved its input there through
    ///   ``DecoderInputPump``); or `nil` when the decoder had to start over (the frame lies before
    ///   a damaged stretch it restarted after): feed it from byte 0 and seek again once the
    ///   format is known.
    func seek(toFrame frame: Int) throws(PlayerError) -> (frame: Int, inputOffset: Int?)?
    /// The input byte offset the decoder has reached, counted from the start of the resource.
    var inputPosition: Int { get }
    /// Starts decoding afresh with the bytes fed from now on, at the next good frame: after a
    /// damaged stretch, or past a tag skipped outside the decoder.
    /// - Parameters:
    ///   - byteOffset: where in the resource the next bytes fed come from.
    ///   - frame: the frame of the track the next audio stands for.
    func restart(atByte byteOffset: Int, frame: Int) throws(PlayerError)
}
