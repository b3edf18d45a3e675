import CMPG123
#if canImport(Glibc)
import Glibc
#endif

/// MPEG audio (MP3, MP2) through libmpg123's feed API.
///
/// Feed mode lets bytes come from the ring rather than from a file descriptor, so mpg123 never
/// blocks on the network. Output is forced to signed 16-bit at the stream's own rate and
/// channel count. Gapless decoding stays on (LAME encoder delay and padding are removed), and
/// fuzzy seeking with the input size lets a seek jump to a byte offset instead of reading
/// everything in between.
final class MPG123Decoder: AudioDecoder {
    private let handle: OpaquePointer
    private(set) var format: AudioFormat?
    private var inputLength: Int?
    private var seekIndexInstalled = false
    /// Where this handle's stream began: after a restart past damage, mpg123 counts bytes and
    /// frames from there, and these turn its counts back into the track's.
    private var byteOrigin = 0
    private var frameOrigin = 0
    private let replayGainSettings: ReplayGainSettings
    /// The gain of the ID3v2 tag's `TXXX` frames, applied through mpg123's output scale.
    private var tagAdjustment: ReplayGainAdjustment?
    /// Frames between two entries of the seek index made for constant-bitrate streams.
    private static let seekIndexStep = 8
    /// Entries of that index at most (a 10-hour CBR track still gets every 8th frame).
    private static let seekIndexEntries = 200_000

    /// libmpg123 before API 46 needs one mpg123_init per process; later it is a no-op.
    private static let initialized: Bool = mpg123_init() == MPG123_OK.rawValue

    /// The most bytes one ``feed(_:)`` passes (the session's input chunk).
    static let feedSize = 16 * 1024

    /// - Parameter replayGain: which ReplayGain to apply. Without a tag's values, the LAME
    ///   header's are applied by libmpg123 itself (its RVA setting).
    init(replayGain: ReplayGainSettings = ReplayGainSettings()) throws(PlayerError) {
        _ = Self.initialized
        replayGainSettings = replayGain
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw .decodingFailed(reason: "mpg123_new: \(Self.describe(error))")
        }
        self.handle = handle
        // NO_FRANKENSTEIN: a header that changes rate, channels or layer mid-stream is taken for junk
        // (a false sync in garbage), not for a new stream, so decoding resyncs past it. It also ends
        // decoding where a LAME/Xing tag's frame count runs out: the end of a file's audio, or the
        // first part of MP3s joined with `cat` (the session decodes on past it, see Formats.md).
        let flags = MPG123_GAPLESS.rawValue | MPG123_FUZZY.rawValue | MPG123_SEEKBUFFER.rawValue | MPG123_QUIET.rawValue
            | MPG123_NO_FRANKENSTEIN.rawValue
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(flags), 0)
        // Junk before the first frame and between frames is searched through, up to a limit,
        // so that a non-MPEG input fails instead of being scanned to the end.
        mpg123_param2(handle, Int32(MPG123_RESYNC_LIMIT.rawValue), 64 * 1024, 0)
        // The feeder copies input into a chain of buffers, which it mallocs unless a pooled one
        // is big enough: buffers of a whole feed (the session feeds up to `feedSize` bytes) and a
        // pool of them keep steady-state decoding free of allocations.
        mpg123_param2(handle, Int32(MPG123_FEEDBUFFER.rawValue), Self.feedSize, 0)
        mpg123_param2(handle, Int32(MPG123_FEEDPOOL.rawValue), 8, 0)
        // ReplayGain scales inside libmpg123's synthesis, before its one rounding to 16 bits. Off,
        // the output scale is never touched, so samples stay bit for bit as before.
        if replayGain.mode != .off {
            let rva = replayGain.mode == .album ? MPG123_RVA_ALBUM : MPG123_RVA_MIX
            mpg123_param2(handle, Int32(MPG123_RVA.rawValue), Int(rva.rawValue), 0)
            mpg123_volume(handle, ReplayGainValues.scale(forDecibels: replayGain.preamp))
        }
        mpg123_format_none(handle)
        var rates: UnsafePointer<Int>?
        var count = 0
        mpg123_rates(&rates, &count)
        for index in 0..<count {
            mpg123_format(handle, rates![index], Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                          Int32(MPG123_ENC_SIGNED_16.rawValue))
        }
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            let reason = lastError
            mpg123_delete(handle)
            throw .decodingFailed(reason: "mpg123_open_feed: \(reason)")
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Two frames of stereo 16-bit audio: small chunks keep the start quick and the sink's
    /// queue even.
    var preferredBufferSize: Int { 2 * 1152 * 2 * 2 }

    var totalFrames: Int? {
        // Without the input's size mpg123 only counts what it has seen so far: no duration.
        guard inputLength != nil else { return nil }
        let length = mpg123_length(handle)
        return length > 0 ? frameOrigin + Int(length) : nil
    }

    var bytesPerSecond: Int? {
        var info = mpg123_frameinfo2()
        guard mpg123_info2(handle, &info) == MPG123_OK.rawValue, info.bitrate > 0 else { return nil }
        return Int(info.bitrate) * 125
    }

    var samplesPerFrame: Int? {
        let samples = mpg123_spf(handle)
        return samples > 0 ? Int(samples) : nil
    }

    var inputPosition: Int {
        byteOrigin + max(Int(mpg123_tell_stream(handle)), 0)
    }

    func setInputLength(_ bytes: Int) {
        guard bytes != inputLength else { return }
        inputLength = bytes
        mpg123_set_filesize(handle, off_t(bytes - byteOrigin))
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(PlayerError) {
        let result = mpg123_feed(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard result == MPG123_OK.rawValue else {
            throw .decodingFailed(reason: "mpg123_feed: \(lastError)")
        }
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep {
        let firstFrame = frameOrigin + Int(mpg123_tell(handle))
        var done = 0
        let result = mpg123_read(handle, buffer.baseAddress, buffer.count, &done)
        if done > 0 {
            return .audio(byteCount: done, firstFrame: max(firstFrame, 0))
        }
        switch result {
        case MPG123_OK.rawValue, MPG123_NEED_MORE.rawValue:
            return .needMore
        case MPG123_NEW_FORMAT.rawValue:
            var rate = 0
            var channels: Int32 = 0
            var encoding: Int32 = 0
            mpg123_getformat(handle, &rate, &channels, &encoding)
            format = AudioFormat(sampleRate: rate, channels: Int(channels))
            if replayGainSettings.mode != .off { settleHeaderGain() }
            return .formatChanged
        case MPG123_DONE.rawValue:
            return .finished
        default:
            throw .decodingFailed(reason: lastError)
        }
    }

    var replayGain: ReplayGainAdjustment? {
        if let tagAdjustment { return tagAdjustment }
        guard replayGainSettings.mode != .off, format != nil, let (rva, really) = headerGain() else { return nil }
        let applied = 20 * log10(really)
        let limited = applied < rva + replayGainSettings.preamp - 0.01
        return ReplayGainAdjustment(scope: headerScope, source: .lameHeader, tagGain: rva, peak: nil,
                                    appliedGain: applied, limitedByPeak: limited)
    }

    /// Which of the LAME header's fields libmpg123 applies (Radio for track, Audiophile for album).
    private var headerScope = ReplayGainMode.track
    private var headerGainChecked = false

    /// The LAME header's gain libmpg123 applies, in decibels, and the scale it really applies;
    /// `nil` when it applies none.
    private func headerGain() -> (Double, Double)? {
        var base = 0.0, really = 0.0, rva = 0.0
        guard mpg123_getvolume(handle, &base, &really, &rva) == MPG123_OK.rawValue, rva != 0, base > 0 else { return nil }
        return (rva, really)
    }

    /// Once the first header is read, before any audio: in album mode, a LAME header without an
    /// Audiophile gain (LAME writes only the Radio one) falls back to the Radio gain, as a tag's
    /// album gain falls back to its track gain.
    private func settleHeaderGain() {
        guard !headerGainChecked else { return }
        headerGainChecked = true
        headerScope = replayGainSettings.mode
        guard tagAdjustment == nil, replayGainSettings.mode == .album, headerGain() == nil else { return }
        mpg123_param2(handle, Int32(MPG123_RVA.rawValue), Int(MPG123_RVA_MIX.rawValue), 0)
        // Setting the volume again makes libmpg123 compute its scale with the new setting.
        mpg123_volume(handle, ReplayGainValues.scale(forDecibels: replayGainSettings.preamp))
        headerScope = .track
    }

    func useReplayGain(fromTag values: ReplayGainValues) {
        guard let adjustment = values.adjustment(for: replayGainSettings) else { return }
        tagAdjustment = adjustment
        // The tag wins over the LAME header: mpg123's own RVA is turned off.
        mpg123_param2(handle, Int32(MPG123_RVA.rawValue), Int(MPG123_RVA_OFF.rawValue), 0)
        mpg123_volume(handle, adjustment.scale)
    }

    var searchesForFrames: Bool { true }
    /// The session reads an MP3's ID3v2 tag itself, before mpg123 sees a byte.
    var tags: StreamMetadata? { nil }

    func seek(toFrame frame: Int) throws(PlayerError) -> (frame: Int, inputOffset: Int?)? {
        guard frame >= frameOrigin else {
            // Before the damaged stretch this handle restarted after: start over.
            try reopen(byteOrigin: 0, frameOrigin: 0)
            format = nil
            seekIndexInstalled = false
            return nil
        }
        installConstantBitrateIndex()
        var inputOffset: off_t = 0
        let landed = mpg123_feedseek(handle, off_t(frame - frameOrigin), SEEK_SET, &inputOffset)
        guard landed >= 0 else {
            throw .decodingFailed(reason: "seek to frame \(frame): \(lastError)")
        }
        return (frameOrigin + Int(landed), byteOrigin + Int(inputOffset))
    }

    /// Gives mpg123 a frame index for the whole of a constant-bitrate stream.
    ///
    /// Beyond the frames it has read, mpg123 can only guess a seek offset, from the Xing/Info
    /// table of contents (1% steps: a third of a second in a 30 s track) and it then believes the
    /// guess. In a CBR stream frame k starts within a byte of `first + k × mean size`, so an index
    /// of those offsets (a few bytes early; mpg123 syncs forward to the header) makes every seek
    /// exact: mpg123 starts at an indexed frame, decodes the frames in between for the bit
    /// reservoir, and drops samples up to the target.
    private func installConstantBitrateIndex() {
        // Only while this handle started at the track's first frame (after a tag skipped outside
        // mpg123, its byte counts start after the tag; after damage, its frame numbers are off).
        guard !seekIndexInstalled, frameOrigin == 0, let inputLength else { return }
        var info = mpg123_frameinfo2()
        guard mpg123_info2(handle, &info) == MPG123_OK.rawValue, info.vbr == Int32(MPG123_CBR.rawValue),
              info.bitrate > 0, info.rate > 0 else { return }
        var offsets: UnsafeMutablePointer<off_t>?
        var currentStep: off_t = 0
        var fill = 0
        guard mpg123_index(handle, &offsets, &currentStep, &fill) == MPG123_OK.rawValue, fill > 0, let offsets else { return }
        let first = Double(offsets[0])
        let coefficient: Double = switch (info.layer, info.version) {
        case (1, _): 48_000
        case (3, let version) where version != Int32(MPG123_1_0.rawValue): 72_000
        default: 144_000
        }
        let meanFrameSize = coefficient * Double(info.bitrate) / Double(info.rate)
        let frames = Int((Double(inputLength - byteOrigin) - first) / meanFrameSize)
        guard frames > 0 else { return }
        // The length comes from the server: keep the index small whatever it claims.
        let step = max(Self.seekIndexStep, frames / Self.seekIndexEntries + 1)
        var index: [off_t] = [off_t(first)]
        for entry in 1...max(frames / step, 1) {
            let estimate = first + (Double(entry * step) * meanFrameSize).rounded(.down)
            index.append(off_t(estimate) - 2)
        }
        seekIndexInstalled = mpg123_set_index(handle, &index, off_t(step), index.count) == MPG123_OK.rawValue
    }

    func restart(atByte byteOffset: Int, frame: Int) throws(PlayerError) {
        try reopen(byteOrigin: byteOffset, frameOrigin: frame)
    }

    private func reopen(byteOrigin: Int, frameOrigin: Int) throws(PlayerError) {
        mpg123_close(handle)
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            throw .decodingFailed(reason: "mpg123_open_feed: \(lastError)")
        }
        self.byteOrigin = byteOrigin
        self.frameOrigin = frameOrigin
        if let inputLength { mpg123_set_filesize(handle, off_t(inputLength - byteOrigin)) }
    }

    private var lastError: String {
        String(cString: mpg123_strerror(handle))
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: mpg123_plain_strerror(code))
    }
}
