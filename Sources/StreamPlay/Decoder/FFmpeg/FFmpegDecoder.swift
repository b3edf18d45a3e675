import CFFmpeg

/// Every format besides MPEG audio, through FFmpeg's libraries: libavformat demuxes what the
/// session feeds (see ``AVIOBridge``), libavcodec decodes, and libswresample converts the
/// decoder's sample format (often planar float) to the interleaved signed 16-bit the sinks take.
///
/// libswresample never changes the rate or the channel layout: the sound server resamples, once,
/// and a lossy stream's float samples are rounded once, to 16 bits. The output format follows
/// the decoded frames, not the container's header (HE-AAC doubles its header's rate), and a
/// change mid-stream (a chained Ogg) is reported as a new format.
///
/// A ReplayGain is applied by the same converter, as a diagonal channel matrix computed in
/// float, so the gain adds no second rounding.
///
/// All of it, the FFmpeg handles included, is confined to the decoder thread.
final class FFmpegDecoder: AudioDecoder {
    /// The container the sniffer recognised; it picks the demuxer, so nothing is probed twice
    /// and a file's name decides nothing.
    let container: MediaSignature
    private let io: AVIOBridge
    private(set) var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    /// The sample converter, made and freed in FFmpegDecoder+Converter.swift.
    var converter: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var streamIndex: Int32 = -1
    private var stage = Stage.closed
    /// A frame decoded under a new format, waiting until the session has taken the format.
    private var heldFrame = false
    private(set) var format: AudioFormat?
    private(set) var tags: StreamMetadata?
    /// The converter's input side, to tell a new format from the frames'.
    var sourceLayout: (rate: Int32, format: Int32, channels: Int32)?
    /// The track frame the next audio written stands for.
    private(set) var nextFrame = 0
    /// After a seek: the next decoded frame's timestamp places the timeline, and audio before
    /// this track frame is dropped.
    private var seekTarget: Int?
    /// The track frame a FLAC seek landed on, for a first frame without a timestamp.
    private var seekLanding: Int?
    /// Where the next stream starts once the current one is decoded to its end.
    private var pendingRestart: (byteOffset: Int, frame: Int)?
    /// Whether the session is inside a read of ours (the demuxer asked for input).
    private var reading = false
    private var damagedPackets = 0
    private(set) var inputLength: Int?
    private let replayGainSettings: ReplayGainSettings
    /// Values of a tag in front of the stream (an ID3v2 tag the session skipped).
    private var tagReplayGain: ReplayGainValues?
    private(set) var replayGain: ReplayGainAdjustment?
    /// An Ogg stream's pages, for each chained stream's comment header and for its last page.
    let oggPages: OggChainWatcher?
    /// Whether audio was decoded since the stream was opened: the first stream's names are read
    /// with its header, and only later ones are news.
    private var decodedSinceOpen = false
    /// Names of chained streams whose first packet went to the decoder: each is reported just
    /// before that stream's first audio.
    private var chainTags: [StreamMetadata] = []
    /// The track's length from an `iTunSMPB` comment: audio beyond it is encoder padding.
    private var gaplessEnd: Int?

    private enum Stage { case closed, decoding, draining, ended }

    /// Damaged packets in a row before the play fails (a few are skipped, as players do).
    private static let damageLimit = 32

    /// The most channels a stream may have: PulseAudio's limit (`PA_CHANNELS_MAX`). A stream
    /// with more is refused as ``PlayerError/unsupportedFormat(url:format:)`` at its first frame.
    static let maximumChannels = 32
    /// Audio decoded before a seek target and dropped, so that codecs with overlapping frames
    /// (AAC, Vorbis, Opus) have settled by the target.
    private static let seekPreroll = 0.1

    /// FFmpeg's libraries, loaded by the first decoder of the process (see CFFmpeg.h): `nil`
    /// once they are, or why they cannot be. FFmpeg's own log is silenced then: it would write
    /// to the listener's terminal, and what matters of it comes back as error codes, which the
    /// typed errors carry.
    private static let librariesMissing: String? = {
        guard sp_ffmpeg_load() == 1 else { return String(cString: sp_ffmpeg_load_error()) }
        sp_av_log_set_level(AV_LOG_QUIET)
        return nil
    }()

    /// A decoder for `container`, reading through `pump`.
    /// - Throws: `decodingFailed` naming the library, when FFmpeg's libraries cannot be loaded
    ///   (not installed, or of another major version than the headers StreamPlay was built with).
    init(container: MediaSignature, pump: any DecoderInputPump,
         replayGain: ReplayGainSettings = ReplayGainSettings()) throws(PlayerError) {
        if let missing = Self.librariesMissing {
            throw .decodingFailed(reason: "\(container) needs FFmpeg's libraries, which cannot be loaded: \(missing)")
        }
        self.container = container
        replayGainSettings = replayGain
        io = AVIOBridge(pump: pump)
        if case .ogg = container { oggPages = OggChainWatcher() } else { oggPages = nil }
        io.watcher = oggPages
        packet = sp_av_packet_alloc()
        frame = sp_av_frame_alloc()
    }

    deinit {
        closeStream()
        sp_av_packet_free(&packet)
        sp_av_frame_free(&frame)
    }

    /// 4096 stereo frames; a larger decoded frame (FLAC's blocks) is handed out in parts, which
    /// the converter holds meanwhile.
    static let bufferSize = 4096 * 2 * 2
    var preferredBufferSize: Int { Self.bufferSize }
    var searchesForFrames: Bool { false }

    var totalFrames: Int? {
        guard let format, let formatContext, streamIndex >= 0 else { return nil }
        if let gaplessEnd { return gaplessEnd }
        let stream = formatContext.pointee.streams[Int(streamIndex)]!.pointee
        if stream.duration > 0 {
            return Int(sp_av_rescale_q(stream.duration, stream.time_base, AVRational(num: 1, den: Int32(format.sampleRate))))
        }
        let duration = formatContext.pointee.duration
        guard duration > 0 else { return nil }
        return Int(sp_av_rescale(duration, Int64(format.sampleRate), Int64(AV_TIME_BASE)))
    }

    var bytesPerSecond: Int? {
        guard let formatContext else { return nil }
        if streamIndex >= 0, let parameters = formatContext.pointee.streams[Int(streamIndex)]?.pointee.codecpar,
           parameters.pointee.bit_rate > 0 {
            return Int(parameters.pointee.bit_rate / 8)
        }
        return formatContext.pointee.bit_rate > 0 ? Int(formatContext.pointee.bit_rate / 8) : nil
    }

    var samplesPerFrame: Int? {
        guard let codecContext, codecContext.pointee.frame_size > 0 else { return nil }
        return Int(codecContext.pointee.frame_size)
    }

    var inputPosition: Int { io.position }

    func setInputLength(_ bytes: Int) { inputLength = bytes }

    func useReplayGain(fromTag values: ReplayGainValues) { tagReplayGain = values }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(PlayerError) {
        io.append(bytes)
    }

    func restart(atByte byteOffset: Int, frame: Int) throws(PlayerError) {
        if reading {
            // The session's feeding reached a new stream while the demuxer reads the old one:
            // it ends there, and the new one is opened once everything before is decoded.
            io.endStreamHere()
            pendingRestart = (byteOffset, frame)
        } else {
            closeStream()
            io.reset(at: byteOffset)
            nextFrame = frame
            pendingRestart = nil
        }
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep {
        while true {
            switch stage {
            case .closed:
                guard try openStream() else { return .needMore }
                stage = .decoding
            case .decoding, .draining:
                if let step = try convertHeldAudio(into: buffer) { return step }
                guard let codecContext, let frame else { return .needMore }
                let received = sp_avcodec_receive_frame(codecContext, frame)
                if received == 0 {
                    if let step = try takeFrame(into: buffer) { return step }
                    continue
                }
                if received == sp_averror_eof() {
                    stage = .ended
                    continue
                }
                guard received == sp_averror(EAGAIN) else { throw failure("decoding", received) }
                if stage == .draining { stage = .ended; continue }
                if let step = try readPacket() { return step }
            case .ended:
                if let restart = pendingRestart {
                    pendingRestart = nil
                    closeStream()
                    io.reset(at: restart.byteOffset)
                    nextFrame = restart.frame
                    continue
                }
                // A failed input is the session's to report: it learns of it by asking for more.
                if io.inputFailed { return .needMore }
                try checkComplete()
                return .finished
            }
        }
    }

    func seek(toFrame target: Int) throws(PlayerError) -> (frame: Int, inputOffset: Int?)? {
        guard let formatContext, let codecContext, let format, streamIndex >= 0 else {
            throw .seekNotSupported(reason: "the \(container) stream is not open yet")
        }
        let stream = formatContext.pointee.streams[Int(streamIndex)]!.pointee
        let start = format.frames(forSeconds: max(format.seconds(forFrames: target) - Self.seekPreroll, 0))
        var timestamp = sp_av_rescale_q(Int64(start), AVRational(num: 1, den: Int32(format.sampleRate)), stream.time_base)
        // Wrapping: the start time is the container's number, which a damaged file sets anywhere.
        if stream.start_time != Int64(bitPattern: UInt64(0x8000000000000000)) { timestamp &+= stream.start_time }
        io.clearInterrupt()
        // A FLAC is searched by its frame headers (see FLACSeekSearch), then entered by a byte
        // seek; anything else by libavformat's own search.
        let landing = if case .flac = container {
            Self.flacLanding(at: start, context: formatContext, streamIndex: streamIndex, inputLength: inputLength,
                             interrupted: { [io] in io.interrupted })
        } else { FLACLanding.unavailable }
        let result: Int32
        switch landing {
        case .frame(let offset, let sample):
            seekLanding = sample
            result = sp_avformat_seek_file(formatContext, streamIndex, Int64(offset), Int64(offset), Int64(offset), AVSEEK_FLAG_BYTE)
        case .unavailable:
            seekLanding = nil
            result = io.interrupted ? 0 : sp_avformat_seek_file(formatContext, streamIndex, Int64.min, timestamp, timestamp, 0)
        }
        if io.interrupted {
            // A stop (or another seek) came while the demuxer searched: the session carries it out.
            io.clearInterrupt()
            return (target, nil)
        }
        guard result >= 0 else {
            throw .seekNotSupported(reason: "the \(container) stream cannot seek: \(Self.describe(result))")
        }
        sp_avcodec_flush_buffers(codecContext)
        // Made anew at the next frame, not closed and opened again: swr_init keeps what is left
        // of an earlier seek's swr_drop_output, which would cut the start of this one.
        freeConverter()
        heldFrame = false
        oggPages?.dropComments()
        chainTags.removeAll()
        stage = .decoding
        seekTarget = target
        return (target, nil)
    }

    // MARK: Opening

    /// Opens the demuxer on the bytes fed and the decoder of its audio stream.
    /// - Returns: `false` when a command interrupted the reading.
    private func openStream() throws(PlayerError) -> Bool {
        // An MP4's index may follow its media: a server without ranges is then read twice.
        let avio = try io.open(rereading: isMP4)
        guard var context = sp_avformat_alloc_context() else { throw .decodingFailed(reason: "out of memory") }
        context.pointee.pb = avio
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        // libavformat puts a FLAC's seek table into its index only in its fast-seek mode, and
        // the FLAC search (FFmpegDecoder+FLACSeek) takes its bracket from that index. The mode
        // is on while the header is read, and off again before any seek: in it, libavformat's
        // own FLAC seek (this decoder's fallback) would jump to a seek point and trust it.
        if case .flac = container { context.pointee.flags |= AVFMT_FLAG_FAST_SEEK }
        let demuxer = sp_av_find_input_format(container.demuxerName)
        reading = true
        defer { reading = false }
        var pointer: UnsafeMutablePointer<AVFormatContext>? = context
        let opened = sp_avformat_open_input(&pointer, nil, demuxer, nil)
        guard opened >= 0, let opened = pointer else {
            // avformat_open_input frees the context on failure.
            io.close()
            if io.interrupted { io.clearInterrupt(); return false }
            throw failure("reading the \(container) container", opened)
        }
        context = opened
        context.pointee.flags &= ~AVFMT_FLAG_FAST_SEEK
        formatContext = context
        let found = sp_avformat_find_stream_info(context, nil)
        if found < 0 {
            if io.interrupted { closeStream(); io.clearInterrupt(); return false }
            throw failure("reading the \(container) container", found)
        }
        var codec: UnsafePointer<AVCodec>?
        let index = sp_av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard index >= 0 else {
            guard index == sp_averror_decoder_not_found() else {
                throw .decodingFailed(reason: "the \(container) container has no audio stream")
            }
            throw .unsupportedFormat(url: "", format: Self.undecodableAudio(in: context, container: container))
        }
        streamIndex = index
        for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
            context.pointee.streams[other]!.pointee.discard = AVDISCARD_ALL
        }
        let stream = context.pointee.streams[Int(index)]!
        if Self.isEncrypted(stream) {
            throw .drmProtected(url: "", scheme: Self.commonEncryption)
        }
        guard let codecContext = sp_avcodec_alloc_context3(codec) else { throw .decodingFailed(reason: "out of memory") }
        self.codecContext = codecContext
        var status = sp_avcodec_parameters_to_context(codecContext, stream.pointee.codecpar)
        guard status >= 0 else { throw failure("setting up the decoder", status) }
        codecContext.pointee.pkt_timebase = stream.pointee.time_base
        status = sp_avcodec_open2(codecContext, codec, nil)
        guard status >= 0 else { throw failure("opening the \(String(cString: codec!.pointee.name)) decoder", status) }
        damagedPackets = 0
        tags = FFmpegTagReader.read(context, audio: stream)
        if replayGainSettings.mode != .off {
            let values = tagReplayGain ?? FFmpegReplayGainReader.read(context, audio: stream)
            replayGain = values?.adjustment(for: replayGainSettings)
        }
        gaplessEnd = sp_av_dict_get(context.pointee.metadata, "iTunSMPB", nil, 0)
            .flatMap { ITunesGaplessInfo(String(cString: $0.pointee.value)) }?.originalFrames
        return true
    }

    private func closeStream() {
        freeConverter()
        sp_avcodec_free_context(&codecContext)
        if formatContext != nil { sp_avformat_close_input(&formatContext) }
        io.close()
        streamIndex = -1
        heldFrame = false
        decodedSinceOpen = false
        chainTags.removeAll()
        stage = .closed
    }

    // MARK: Decoding

    /// Reads the next packet of the audio stream and sends it to the decoder.
    /// - Returns: a step for the session when the reading stopped (interrupted, input failed).
    private func readPacket() throws(PlayerError) -> DecodeStep? {
        guard let formatContext, let codecContext, let packet else { return .needMore }
        reading = true
        let result = sp_av_read_frame(formatContext, packet)
        reading = false
        defer { sp_av_packet_unref(packet) }
        if result < 0 {
            if io.interrupted {
                io.clearInterrupt()
                return .needMore
            }
            if result == sp_averror_eof() || io.inputEnded || io.inputFailed || io.streamEnd != nil {
                sp_avcodec_send_packet(codecContext, nil)
                stage = .draining
                return nil
            }
            damagedPackets += 1
            if damagedPackets > Self.damageLimit { throw packetFailure(result) }
            return nil
        }
        guard packet.pointee.stream_index == streamIndex else { return nil }
        takeChainTags(at: packet.pointee.pos)
        var size = 0
        if sp_av_packet_get_side_data(packet, AV_PKT_DATA_ENCRYPTION_INFO, &size) != nil {
            throw .drmProtected(url: "", scheme: Self.commonEncryption)
        }
        let sent = sp_avcodec_send_packet(codecContext, packet)
        if sent < 0, sent != sp_averror(EAGAIN) {
            // A damaged packet is skipped; many in a row are not audio at all. Before the first
            // audio, only a bare ADTS stream may begin with damage: a radio station's stream
            // joined mid-frame, where the demuxer takes a false sync word for a frame.
            damagedPackets += 1
            if damagedPackets > Self.damageLimit || (format == nil && container != .adts) { throw failure("decoding", sent) }
        } else {
            damagedPackets = 0
        }
        return nil
    }

    /// Takes the frame just decoded: a new format is reported first; audio is converted.
    private func takeFrame(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep? {
        guard let frame else { return nil }
        decodedSinceOpen = true
        let layout = (rate: frame.pointee.sample_rate, format: frame.pointee.format, channels: frame.pointee.ch_layout.nb_channels)
        if sourceLayout.map({ $0 != layout }) ?? true {
            try configureConverter(for: frame)
            sourceLayout = layout
            let newFormat = AudioFormat(sampleRate: Int(layout.rate), channels: Int(layout.channels))
            if newFormat != format {
                format = newFormat
                heldFrame = true
                return .formatChanged
            }
        }
        heldFrame = true
        return try convertHeldAudio(into: buffer)
    }

    /// Converts the held frame, or what the converter still holds of the last one.
    private func convertHeldAudio(into buffer: UnsafeMutableRawBufferPointer) throws(PlayerError) -> DecodeStep? {
        guard let converter, let format else { return nil }
        if heldFrame, !chainTags.isEmpty {
            // The held frame is the first audio of a chained stream: its names come first.
            tags = chainTags.removeFirst()
            return .tagsChanged
        }
        let capacity = Int32(buffer.count / format.bytesPerFrame)
        var output: UnsafeMutablePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let converted: Int32
        if heldFrame, let frame {
            heldFrame = false
            placeTimeline(frame: frame, format: format)
            converted = withUnsafeMutablePointer(to: &output) { output in
                frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { input in
                    sp_swr_convert(converter, output, capacity, input, frame.pointee.nb_samples)
                }
            }
            sp_av_frame_unref(frame)
        } else if sp_swr_get_out_samples(converter, 0) > 0 {
            converted = withUnsafeMutablePointer(to: &output) { sp_swr_convert(converter, $0, capacity, nil, 0) }
        } else {
            return nil
        }
        guard converted >= 0 else { throw failure("converting samples", converted) }
        // Past an iTunSMPB length, the encoder's padding: decoded (the stream must reach its
        // end) but never heard.
        let kept = gaplessEnd.map { max(min(Int(converted), $0 - nextFrame), 0) } ?? Int(converted)
        guard kept > 0 else { return nil }
        let first = nextFrame
        nextFrame += kept
        return .audio(byteCount: kept * format.bytesPerFrame, firstFrame: first)
    }

    /// After a seek, the first frame's timestamp tells which track frame it starts at; audio
    /// before the target is dropped by the converter.
    private func placeTimeline(frame: UnsafeMutablePointer<AVFrame>, format: AudioFormat) {
        guard let target = seekTarget, let formatContext else { return }
        seekTarget = nil
        let stream = formatContext.pointee.streams[Int(streamIndex)]!.pointee
        let noTimestamp = Int64(bitPattern: UInt64(0x8000000000000000))
        var timestamp = frame.pointee.best_effort_timestamp
        let landed: Int
        if timestamp != noTimestamp {
            // Wrapping, as in `seek`: both numbers come from the container.
            if stream.start_time != noTimestamp { timestamp &-= stream.start_time }
            landed = Int(sp_av_rescale_q(timestamp, stream.time_base, AVRational(num: 1, den: Int32(format.sampleRate))))
        } else if let seekLanding {
            landed = seekLanding
        } else {
            nextFrame = target
            return
        }
        nextFrame = landed
        if target > landed, let converter {
            let (gap, overflow) = target.subtractingReportingOverflow(landed)
            let dropped = Int32(clamping: overflow ? Int.max : gap)
            sp_swr_drop_output(converter, dropped)
            nextFrame = landed + Int(dropped)
        }
    }

    /// A chained stream begins with the packet at input offset `position` when a comment
    /// header was read before it; the stream's names wait for its first decoded audio.
    private func takeChainTags(at position: Int64) {
        guard let oggPages, position >= 0 else { return }
        let comments = oggPages.takeComments(before: Int(position))
        // The first stream's comment was read with the header (FFmpegTagReader).
        guard decodedSinceOpen else { return }
        chainTags += comments.compactMap(\.tags)
    }

    // MARK: Errors

    private var isMP4: Bool {
        if case .mp4 = container { true } else { false }
    }

    /// Packets that cannot be read from an MP4 on an input that cannot seek: its index follows
    /// its media, which the demuxer read through to reach it and cannot go back to.
    private func packetFailure(_ code: Int32) -> PlayerError {
        guard isMP4, !io.seekable else { return failure("reading the \(container) container", code) }
        return .decodingFailed(reason: "reading the \(container) container: \(Self.describe(code)); its index follows its media, and the server neither takes Range requests nor says the length, so the media cannot be read again after the index")
    }
}
