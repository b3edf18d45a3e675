import CPulse

/// What a ``PulseAudioSink`` asks the server for when it makes a stream: 16-bit samples in the
/// machine's byte order, a buffer of the sink's target latency and prebuffer, a stream that
/// starts corked with interpolated, self-updating timing, and a volume on every channel.
enum PulseAudioStreamRequest {
    #if _endian(little)
    private static let nativeS16 = PA_SAMPLE_S16LE
    #else
    private static let nativeS16 = PA_SAMPLE_S16BE
    #endif

    /// The stream flags: corked until the prebuffer is written, with timing kept up to date.
    static let flags = pa_stream_flags_t(rawValue: PA_STREAM_START_CORKED.rawValue
        | PA_STREAM_INTERPOLATE_TIMING.rawValue
        | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
        | PA_STREAM_ADJUST_LATENCY.rawValue)

    /// The sample spec of `format`.
    static func sampleSpec(_ format: AudioFormat) -> pa_sample_spec {
        pa_sample_spec(format: nativeS16, rate: UInt32(format.sampleRate), channels: UInt8(format.channels))
    }

    /// Buffer attributes for `targetLatency` and `prebuffer` seconds of `spec`; the rest is
    /// left to the server.
    static func bufferAttributes(targetLatency: Double, prebuffer: Double, spec: pa_sample_spec) -> pa_buffer_attr {
        var spec = spec
        return pa_buffer_attr(
            maxlength: UInt32.max,
            tlength: UInt32(pa_usec_to_bytes(pa_usec_t(targetLatency * 1_000_000), &spec)),
            prebuf: UInt32(pa_usec_to_bytes(pa_usec_t(prebuffer * 1_000_000), &spec)),
            minreq: UInt32.max,
            fragsize: UInt32.max)
    }

    /// `volume` (linear, 1 leaves samples unchanged) on each of `channels`.
    static func volume(_ volume: Double, channels: Int) -> pa_cvolume {
        var result = pa_cvolume()
        pa_cvolume_set(&result, UInt32(channels), pa_sw_volume_from_linear(volume))
        return result
    }
}
