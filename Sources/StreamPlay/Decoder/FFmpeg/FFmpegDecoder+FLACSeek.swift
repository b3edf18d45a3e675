import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

// A seek in a FLAC stream: FLACSeekSearch chooses the reads, this carries them out through the
// format context's own I/O (so libavformat's buffer stays in step), and the demuxer is then
// moved to the frame found by a byte seek. Confined to the decoder thread, as the decoder.

extension FFmpegDecoder {
    /// What ``flacLanding(at:context:streamIndex:inputLength:)`` found.
    enum FLACLanding {
        /// Decode from this frame (and drop audio up to the target).
        case frame(FLACSeekSearch.Frame)
        /// The stream gives the search nothing to start from (no STREAMINFO, no frame read
        /// yet, an unknown length) or it gave up: libavformat's own search is used.
        case unavailable
    }

    /// Searches a FLAC stream for the frame to decode from to reach `target` (a sample).
    ///
    /// The bracket starts from libavformat's index: the frames it has read (or a seek table's
    /// points) before and after the target, else the end of the input.
    static func flacLanding(at target: Int, context: UnsafeMutablePointer<AVFormatContext>,
                            streamIndex: Int32, inputLength: Int?) -> FLACLanding {
        guard let pb = context.pointee.pb, let stream = context.pointee.streams[Int(streamIndex)],
              let parameters = stream.pointee.codecpar, let extradata = parameters.pointee.extradata,
              let info = FLACStreamInfo(Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.pointee.extradata_size)))),
              let inputLength, stream.pointee.time_base.num > 0 else { return .unavailable }
        let timeBase = stream.pointee.time_base
        let samples = AVRational(num: 1, den: Int32(info.sampleRate))
        func frame(_ index: Int32) -> FLACSeekSearch.Frame? {
            guard let entry = sp_avformat_index_get_entry(stream, index) else { return nil }
            return .init(offset: Int(entry.pointee.pos), sample: Int(sp_av_rescale_q(entry.pointee.timestamp, timeBase, samples)))
        }
        let timestamp = sp_av_rescale_q(Int64(target), samples, timeBase)
        let below = sp_av_index_search_timestamp(stream, timestamp, AVSEEK_FLAG_BACKWARD)
        guard below >= 0, let lower = frame(below) else { return .unavailable }
        let upper = below + 1 < sp_avformat_index_get_entries_count(stream) ? frame(below + 1) : nil
        let window = min(max(info.maximumFrameSize * 2 + 64, 8 * 1024), 64 * 1024)
        var search = FLACSeekSearch(target: target, lower: lower,
                                    upperOffset: upper?.offset ?? inputLength,
                                    upperSample: upper?.sample ?? max(info.totalSamples, target + 1),
                                    closeEnough: info.sampleRate / 2,
                                    window: info.maximumFrameSize > 0 ? window : 32 * 1024)
        var bytes = [UInt8](repeating: 0, count: search.window)
        while let offset = search.nextRead() {
            guard sp_avio_seek(pb, Int64(offset), SEEK_SET) >= 0 else { return .unavailable }
            let count = sp_avio_read(pb, &bytes, Int32(bytes.count))
            guard count > 0 else { return .unavailable }
            let frames = bytes.withUnsafeBytes {
                FLACFrameHeader.frames(in: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count))), at: offset, streamInfo: info)
            }
            guard search.record(frames: frames.map { .init(offset: $0.offset, sample: $0.header.firstSample) },
                                readAt: offset) else { return .unavailable }
        }
        return .frame(search.landing)
    }
}
