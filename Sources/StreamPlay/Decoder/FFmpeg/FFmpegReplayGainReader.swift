import CFFmpeg

/// Finds a stream's ReplayGain values through libavformat, once its header is read. Runs on the
/// decoder thread, which owns the format context.
enum FFmpegReplayGainReader {
    /// The values, best source first: `REPLAYGAIN_*` tags (Vorbis comments, MP4 freeform atoms,
    /// matched without case), then an Opus stream's `R128_*` comments, then the ReplayGain side
    /// data FFmpeg's demuxer attaches to the stream.
    static func read(_ context: UnsafeMutablePointer<AVFormatContext>,
                     audio stream: UnsafeMutablePointer<AVStream>) -> ReplayGainValues? {
        func value(_ key: String) -> String? {
            for dictionary in [stream.pointee.metadata, context.pointee.metadata] {
                if let entry = sp_av_dict_get(dictionary, key, nil, 0), let text = entry.pointee.value {
                    return String(cString: text)
                }
            }
            return nil
        }
        if let tags = ReplayGainValues(source: .tags, value: value) { return tags }
        if stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_OPUS, let r128 = ReplayGainValues(opusR128: value) {
            return r128
        }
        return sideData(of: stream)
    }

    /// `AVReplayGain`: gains in microbels (`INT32_MIN` when unknown), peaks in units of 1/100000
    /// of full scale (0 when unknown), track before album.
    private static func sideData(of stream: UnsafeMutablePointer<AVStream>) -> ReplayGainValues? {
        var size = 0
        guard let data = sp_av_stream_get_side_data(stream, AV_PKT_DATA_REPLAYGAIN, &size), size >= 16 else { return nil }
        let raw = UnsafeRawPointer(data)
        func gain(at offset: Int) -> Double? {
            let value = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            return value == Int32.min ? nil : Double(value) / 100_000
        }
        func peak(at offset: Int) -> Double? {
            let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return value == 0 ? nil : Double(value) / 100_000
        }
        let values = ReplayGainValues(trackGain: gain(at: 0), trackPeak: peak(at: 4), albumGain: gain(at: 8),
                                      albumPeak: peak(at: 12), source: .container)
        return values.isEmpty ? nil : values
    }
}
