import CFFmpeg

// What the decoder says about a stream FFmpeg cannot play, and which demuxer a container takes:
// facts read from FFmpeg's structures, with no state of the decoder's.

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

    /// Whether the stream's samples are encrypted: an MP4 `enca` entry with protection data.
    static func isEncrypted(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        var size = 0
        return sp_av_stream_get_side_data(stream, AV_PKT_DATA_ENCRYPTION_INIT_INFO, &size) != nil
    }

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
