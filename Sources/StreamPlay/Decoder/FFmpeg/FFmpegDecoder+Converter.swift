import CFFmpeg

// The sample converter (libswresample): made for each source layout, freed at a seek, and
// carrying ReplayGain as its matrix. Decoder thread only, as the rest of FFmpegDecoder.

extension FFmpegDecoder {
    /// Frees the sample converter; the next frame makes one for its layout.
    func freeConverter() {
        if let converter = converter {
            var pointer: OpaquePointer? = converter
            sp_swr_free(&pointer)
            self.converter = nil
        }
        sourceLayout = nil
    }

    /// Makes the converter for `frame`'s layout (16-bit interleaved out, same rate and
    /// channels), with the ReplayGain matrix when a gain applies.
    func configureConverter(for frame: UnsafeMutablePointer<AVFrame>) throws(PlayerError) {
        // Checked before libswresample sees the layout: its matrix (ReplayGain's) holds 64
        // channels and writes past them unchecked, and a sound server takes fewer still.
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        guard (1...Self.maximumChannels).contains(channels) else {
            throw .unsupportedFormat(url: "", format: "\(container) audio with \(channels) channels (at most \(Self.maximumChannels) play)")
        }
        var converter = self.converter
        let result = withUnsafeMutablePointer(to: &frame.pointee.ch_layout) { layout in
            sp_swr_alloc_set_opts2(&converter, layout, AV_SAMPLE_FMT_S16, frame.pointee.sample_rate,
                                layout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil)
        }
        self.converter = converter
        guard result >= 0, let converter else { throw failure("setting up the sample converter", result) }
        if let replayGain { try applyGain(replayGain.scale, channels: channels, to: converter) }
        let initialised = sp_swr_init(converter)
        guard initialised >= 0 else { throw failure("setting up the sample converter", initialised) }
    }

    /// Makes the converter multiply every channel by `scale` while it converts: a diagonal matrix
    /// applied in float (FFmpeg would keep 16-bit input in integers), so samples are rounded to
    /// 16 bits once, after the gain, and clipped there. Called while the converter is not
    /// initialised; once per format, never per buffer.
    private func applyGain(_ scale: Double, channels: Int, to converter: OpaquePointer) throws(PlayerError) {
        sp_swr_close(converter)
        var matrix = [Double](repeating: 0, count: channels * channels)
        for channel in 0..<channels { matrix[channel * channels + channel] = scale }
        var status = sp_av_opt_set_sample_fmt(UnsafeMutableRawPointer(converter), "internal_sample_fmt", AV_SAMPLE_FMT_FLTP, 0)
        guard status >= 0 else { throw failure("setting up the ReplayGain", status) }
        status = sp_swr_set_matrix(converter, matrix, Int32(channels))
        guard status >= 0 else { throw failure("setting up the ReplayGain", status) }
    }
}
