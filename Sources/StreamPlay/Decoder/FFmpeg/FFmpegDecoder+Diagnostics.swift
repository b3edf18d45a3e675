import CFFmpeg

// What the decoder says about a stream FFmpeg cannot play or that ends short, and which
// demuxer a container takes: facts read from FFmpeg's structures and the decoder's counts.

extension FFmpegDecoder {
    /// Names the audio a container holds that no decoder of this FFmpeg build takes: its codec,
    /// or the container's tag for it when FFmpeg does not know the codec at all.
    static func undecodableAudio(in context: UnsafeMutablePointer<AVFormatContext>, container: MediaSignature) -> String {
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let parameters = context.pointee.streams[index]?.pointee.codecpar,
                  parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            let id = parameters.pointee.codec_id
            if id != AV_CODEC_ID_NONE {
                return "\(container) with \(String(cString: sp_avcodec_get_name(id))) audio, which this FFmpeg build cannot decode"
            }
            let tag = parameters.pointee.codec_tag
            return "\(container) with audio of unknown codec (tag 0x\(String(tag, radix: 16)))"
        }
        return "\(container) with audio no decoder takes"
    }

    /// The protection an encrypted MP4 track carries; the session names the URL.
    static let commonEncryption = "MPEG Common Encryption (cenc/cbcs)"

    /// Whether the stream's samples are encrypted: an MP4 `enca` entry with protection data.
    static func isEncrypted(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        var size = 0
        return sp_av_stream_get_side_data(stream, AV_PKT_DATA_ENCRYPTION_INIT_INFO, &size) != nil
    }

    /// Fails a file that ends well before the length its header declares (a FLAC's
    /// STREAMINFO, an MP4's sample table): it was cut short, and ending in success would pass
    /// off part of a track as the whole. Lengths estimated from the bitrate, and streams of
    /// unknown size (HLS, radio), are not judged.
    func checkComplete() throws(PlayerError) {
        if inputLength != nil, let oggPages, oggPages.endsMidPage {
            throw .decodingFailed(reason: "the \(container) stream ends part-way through a page: the file is truncated")
        }
        guard inputLength != nil, let formatContext, let format, let declared = totalFrames,
              formatContext.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE else { return }
        let tolerance = max(format.frames(forSeconds: Self.truncationTolerance), declared / 50)
        let (reached, overflow) = nextFrame.addingReportingOverflow(tolerance)
        guard !overflow, reached < declared else { return }
        let ended = format.seconds(forFrames: nextFrame), length = format.seconds(forFrames: declared)
        throw .decodingFailed(reason: "the \(container) stream ends at \(Self.seconds(ended)) of the \(Self.seconds(length)) its header declares: the file is truncated")
    }

    /// Audio missing at the end that still counts as complete (encoder padding, rounding).
    static let truncationTolerance = 0.25

    /// A decoding failure: what the decoder was doing, in FFmpeg's words for `code`.
    func failure(_ doing: String, _ code: Int32) -> PlayerError {
        .decodingFailed(reason: "\(doing): \(Self.describe(code))")
    }

    /// Seconds to a tenth, for a message.
    static func seconds(_ value: Double) -> String {
        "\((value * 10).rounded() / 10) s"
    }

    /// FFmpeg's words for one of its error codes.
    static func describe(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 128)
        sp_av_strerror(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension MediaSignature {
    /// The libavformat demuxer for this container.
    var demuxerName: String {
        switch self {
        case .mp4: "mov"
        case .adts: "aac"
        case .ogg: "ogg"
        case .flac: "flac"
        case .mpegTS: "mpegts"
        case .wav: "wav"
        case .aiff: "aiff"
        case .matroska: "matroska"
        }
    }
}
