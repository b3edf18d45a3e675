/// The kinds of output a ``Player`` can be configured with.
public enum AudioOutput: Sendable {
    /// A PulseAudio (or PipeWire-Pulse) server: `server` as in `PULSE_SERVER` (nil: the
    /// default), `sink` a sink name (nil: the default sink).
    case pulseAudio(server: String? = nil, sink: String? = nil)
    /// A RIFF WAVE file of 16-bit PCM, written as fast as decoding goes.
    case wavFile(path: String)
    /// Discards audio as fast as decoding goes (for tests, benchmarks and headless use).
    case null
    /// A sink of the caller's own.
    case custom(@Sendable () -> any AudioSink)

    /// Makes the sink this output describes.
    func makeSink(configuration: PlayerConfiguration) -> any AudioSink {
        switch self {
        case .pulseAudio(let server, let sink):
            PulseAudioSink(server: server, sinkName: sink, targetLatency: configuration.targetLatency,
                           prebuffer: configuration.prebuffer,
                           reconnectTimeout: configuration.soundServerReconnectTimeout,
                           connectTimeout: configuration.soundServerConnectTimeout)
        case .wavFile(let path):
            WAVFileSink(path: path)
        case .null:
            NullSink()
        case .custom(let make):
            make()
        }
    }
}
