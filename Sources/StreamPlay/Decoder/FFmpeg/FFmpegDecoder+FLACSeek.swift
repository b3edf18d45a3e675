import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

// A seek in a FLAC stream: FLACSeekSearch chooses the reads, this carries them out through the
// format context's own I/O (so libavformat's buffer stays in step), and the demuxer is then
// moved to the frame found by a byte seek. Confined to the decoder thread, as the decoder.

extension FFmpegDecoder {
    /// What ``flacLanding(at:context:streamIndex:inputLength:interrupted:)`` found.
    enum FLACLanding {
        /// Decode from this frame (and drop audio up to the target). Its sample counts from
        /// the track's start, as the decoder's frames do.
        case frame(offset: Int, sample: Int)
        /// The search does not apply (an input that cannot seek, no STREAMINFO, no frame read
        /// yet, an unknown length) or gave up, or a command interrupted it: libavformat's own
        /// search is used, from where the input was (unless interrupted).
        case unavailable
    }

    /// Searches a FLAC stream for the frame to decode from to reach `target` (a sample from the
    /// track's start).
    ///
    /// The bracket starts from libavformat's index: the frames it has read (or a seek table's
    /// points) before and after the target, else the end of the input.
    static func flacLanding(at target: Int, context: UnsafeMutablePointer<AVFormatContext>, streamIndex: Int32,
                            inputLength: Int?, interrupted: () -> Bool) -> FLACLanding {
        // An input that cannot seek would be read forward to each guess, with no way back.
        guard let pb = context.pointee.pb, pb.pointee.seekable & AVIO_SEEKABLE_NORMAL != 0,
              let stream = context.pointee.streams[Int(streamIndex)],
              let parameters = stream.pointee.codecpar, let extradata = parameters.pointee.extradata,
              let info = FLACStreamInfo(Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.pointee.extradata_size)))),
              let inputLength, stream.pointee.time_base.num > 0 else { return .unavailable }
        let timeBase = stream.pointee.time_base
        let samples = AVRational(num: 1, den: Int32(info.sampleRate))
        // Frame headers and the index count from the stream's first sample, which a file cut
        // from a longer one does not start at.
        let noTimestamp = Int64(bitPattern: UInt64(0x8000000000000000))
        let startSample = stream.pointee.start_time == noTimestamp ? 0
            : Int(sp_av_rescale_q(stream.pointee.start_time, timeBase, samples))
        let absoluteTarget = target + startSample
        func indexed(_ index: Int32) -> FLACSeekSearch.Frame? {
            // A seek table's placeholder points, and positions no file has, are no bound.
            guard let entry = sp_avformat_index_get_entry(stream, index), entry.pointee.pos >= 0,
                  entry.pointee.timestamp >= 0 else { return nil }
            return .init(offset: Int(entry.pointee.pos), sample: Int(sp_av_rescale_q(entry.pointee.timestamp, timeBase, samples)))
        }
        let below = sp_av_index_search_timestamp(stream, sp_av_rescale_q(Int64(absoluteTarget), samples, timeBase), AVSEEK_FLAG_BACKWARD)
        guard below >= 0, let lower = indexed(below) else { return .unavailable }
        let upper = below + 1 < sp_avformat_index_get_entries_count(stream) ? indexed(below + 1) : nil
        // Two of the largest frames, so that a read holds a frame and the header confirming it.
        let window = info.maximumFrameSize > 0 ? min(max(info.maximumFrameSize * 2 + 64, 8 * 1024), 512 * 1024) : 64 * 1024
        var search = FLACSeekSearch(target: absoluteTarget, lower: lower,
                                    upperOffset: upper?.offset ?? inputLength,
                                    upperSample: upper?.sample ?? max(info.totalSamples, absoluteTarget + 1),
                                    closeEnough: info.sampleRate / 2, window: window)

        let resumeAt = sp_avio_seek(pb, 0, SEEK_CUR)
        var bytes = [UInt8](repeating: 0, count: window)
        /// The frames a read at `offset` finds; `nil` when the read failed or was interrupted.
        func frames(at offset: Int) -> [FLACSeekSearch.Frame]? {
            guard !interrupted(), sp_avio_seek(pb, Int64(offset), SEEK_SET) >= 0 else { return nil }
            let count = sp_avio_read(pb, &bytes, Int32(bytes.count))
            guard count > 0, !interrupted() else { return nil }
            return bytes.withUnsafeBytes {
                FLACFrameHeader.frames(in: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count))), at: offset, streamInfo: info)
            }.map { .init(offset: $0.offset, sample: $0.header.firstSample) }
        }
        /// Gives the search up: libavformat's search then starts where the input was.
        func unavailable() -> FLACLanding {
            if !interrupted(), resumeAt >= 0 { _ = sp_avio_seek(pb, resumeAt, SEEK_SET) }
            return .unavailable
        }

        while let offset = search.nextRead() {
            guard let found = frames(at: offset), search.record(frames: found, readAt: offset) else { return unavailable() }
        }
        guard search.isSettled else { return unavailable() }
        var landing = search.landing
        if landing == lower {
            // Straight from the index, which holds where libavformat's parser met a frame: not
            // always its first byte. A read there finds the frames themselves.
            guard let found = frames(at: lower.offset),
                  let last = found.last(where: { $0.sample <= absoluteTarget }) else { return unavailable() }
            landing = last
        }
        return .frame(offset: landing.offset, sample: landing.sample - startSample)
    }
}
