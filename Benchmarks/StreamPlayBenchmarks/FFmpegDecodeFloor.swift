import Benchmark
import CFFmpeg

/// FFmpeg's own demux-and-decode loop over a file, with no engine around it: the floor for the
/// engine's allocations on the FFmpeg path.
///
/// libavformat and libavcodec allocate for every packet by design: the demuxer puts each packet
/// in a new reference-counted buffer, the decoder takes a reference to it, and each decoded
/// frame gets a reference from the decoder's buffer pool. No caller can avoid those (FFmpeg 5.1
/// has no pluggable allocator and no decode call without references). So the engine's target on
/// this path is that it adds nothing: its figure for the same file and the same stretch of audio
/// equals this loop's. The loop makes the engine's calls in the engine's order — one packet and
/// one frame, reused; `av_read_frame`, `avcodec_send_packet`, `avcodec_receive_frame`,
/// `swr_convert` to interleaved 16-bit into a fixed buffer — and reads the file through
/// FFmpeg's file protocol instead of the engine's ring.
enum FFmpegDecodeFloor {
    /// Decodes `path` and measures the allocations of the same stretch of audio as
    /// ``SteadyStateAllocations/measure(_:file:)``: from a third of `longSeconds` on, for at
    /// most 60 s.
    static func measure(_ benchmark: Benchmark, path: String, longSeconds: Double) throws {
        guard sp_ffmpeg_load() == 1 else {
            throw BenchFailure("FFmpeg's libraries cannot be loaded: \(String(cString: sp_ffmpeg_load_error()))")
        }
        var formatContext: UnsafeMutablePointer<AVFormatContext>?
        guard sp_avformat_open_input(&formatContext, path, nil, nil) == 0, let formatContext else {
            throw BenchFailure("FFmpeg cannot open \(path)")
        }
        defer { var context: UnsafeMutablePointer<AVFormatContext>? = formatContext; sp_avformat_close_input(&context) }
        guard sp_avformat_find_stream_info(formatContext, nil) >= 0 else { throw BenchFailure("no stream info in \(path)") }
        var codec: UnsafePointer<AVCodec>?
        let streamIndex = sp_av_find_best_stream(formatContext, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard streamIndex >= 0, let codec, let stream = formatContext.pointee.streams[Int(streamIndex)] else {
            throw BenchFailure("no audio stream in \(path)")
        }
        var codecContext = sp_avcodec_alloc_context3(codec)
        defer { sp_avcodec_free_context(&codecContext) }
        guard let codecContext, sp_avcodec_parameters_to_context(codecContext, stream.pointee.codecpar) >= 0,
              sp_avcodec_open2(codecContext, codec, nil) >= 0
        else { throw BenchFailure("cannot open the decoder for \(path)") }

        var converter: OpaquePointer?
        var outputLayout = codecContext.pointee.ch_layout
        var inputLayout = codecContext.pointee.ch_layout
        guard sp_swr_alloc_set_opts2(&converter, &outputLayout, AV_SAMPLE_FMT_S16, codecContext.pointee.sample_rate,
                                  &inputLayout, codecContext.pointee.sample_fmt, codecContext.pointee.sample_rate,
                                  0, nil) >= 0, sp_swr_init(converter) >= 0
        else { throw BenchFailure("cannot set up the sample-format converter") }
        defer { sp_swr_free(&converter) }

        var packet = sp_av_packet_alloc()
        var frame = sp_av_frame_alloc()
        defer { sp_av_packet_free(&packet); sp_av_frame_free(&frame) }
        let capacity: Int32 = 4096
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(capacity) * 2 * 8)
        defer { output.deallocate() }

        let rate = Double(codecContext.pointee.sample_rate)
        let window = min(60.0, longSeconds / 3)
        let (start, stop) = (Int(window * rate), Int(2 * window * rate))
        var decoded = 0
        var measuring = false
        while decoded < stop, sp_av_read_frame(formatContext, packet) >= 0 {
            defer { sp_av_packet_unref(packet) }
            guard packet!.pointee.stream_index == streamIndex else { continue }
            guard sp_avcodec_send_packet(codecContext, packet) >= 0 else { throw BenchFailure("decoding failed") }
            while sp_avcodec_receive_frame(codecContext, frame) >= 0 {
                var planes = output as UnsafeMutablePointer<UInt8>?
                let input = UnsafeMutableRawPointer(frame!.pointee.extended_data!)
                    .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                _ = sp_swr_convert(converter, &planes, capacity, input, frame!.pointee.nb_samples)
                decoded += Int(frame!.pointee.nb_samples)
                sp_av_frame_unref(frame)
            }
            if !measuring && decoded >= start {
                measuring = true
                benchmark.startMeasurement()
            }
        }
        guard measuring else { throw BenchFailure("\(path) is shorter than the measured stretch") }
        benchmark.stopMeasurement()
    }
}
