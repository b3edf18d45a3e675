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

    /// Seconds of a stream's audio the device (the server's sink) holds: what the server
    /// gives a 0.2 s target by its own split. A larger target goes to the stream's queue.
    ///
    /// With `PA_STREAM_ADJUST_LATENCY` the server sets the device's latency to
    /// (`tlength` − 2 × `minreq`) ÷ 2, and `minreq` is 20 ms unless asked. Left at that, a 1 s
    /// target gives the device about 0.5 s, which it fills from the stream the moment output
    /// starts: a start on a 0.1 s prebuffer (or a refill) is swallowed whole, and the stream
    /// underflows until the decoder has written half a second, again and again on a link
    /// only somewhat faster than the stream. PulseAudio and PipeWire's pulse server both
    /// split so.
    static let deviceLatency = 0.08
    /// The server's own `minreq`, which a target of at most 0.2 s keeps.
    static let defaultMinimumRequest = 0.02

    /// Buffer attributes for `targetLatency` and `prebuffer` seconds of `spec`, with a `minreq`
    /// that keeps the device's part at ``deviceLatency`` (the server then asks for audio in
    /// steps of `minreq`, so the queue stays between `tlength` − `minreq` and `tlength`); the
    /// rest is left to the server.
    static func bufferAttributes(targetLatency: Double, prebuffer: Double, spec: pa_sample_spec) -> pa_buffer_attr {
        var spec = spec
        func bytes(_ seconds: Double) -> UInt32 { UInt32(pa_usec_to_bytes(pa_usec_t(seconds * 1_000_000), &spec)) }
        let minimumRequest = (targetLatency - 2 * deviceLatency) / 2
        return pa_buffer_attr(
            maxlength: UInt32.max,
            tlength: bytes(targetLatency),
            prebuf: bytes(prebuffer),
            minreq: minimumRequest > defaultMinimumRequest + 0.001 ? bytes(minimumRequest) : UInt32.max,
            fragsize: UInt32.max)
    }

    /// `volume` (linear, 1 leaves samples unchanged) on each of `channels`.
    static func volume(_ volume: Double, channels: Int) -> pa_cvolume {
        var result = pa_cvolume()
        pa_cvolume_set(&result, UInt32(channels), pa_sw_volume_from_linear(volume))
        return result
    }
}
