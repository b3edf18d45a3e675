@testable import StreamPlay

/// A sound server the output tests play to: the PulseAudio daemon, or PipeWire's PulseAudio
/// server (pipewire-pulse), both started by `scripts/test-servers.sh` with a 44.1 kHz null sink.
struct SoundServer: Sendable, CustomStringConvertible {
    let name: String
    /// The environment variables holding the server's address and its null sink's name.
    let addressVariable: String
    let sinkVariable: String
    /// Its name in `scripts/test-servers.sh kill-NAME` and `start-NAME`.
    let scriptName: String

    var description: String { name }

    static let pulseAudio = SoundServer(name: "PulseAudio", addressVariable: "PULSE_SERVER",
                                        sinkVariable: "STREAMPLAY_TEST_PULSE_SINK", scriptName: "pulse")
    static let pipeWire = SoundServer(name: "PipeWire", addressVariable: "STREAMPLAY_TEST_PIPEWIRE_SERVER",
                                      sinkVariable: "STREAMPLAY_TEST_PIPEWIRE_SINK", scriptName: "pipewire")
    static let all = [pulseAudio, pipeWire]

    /// The server's address, e.g. `unix:/path/native`.
    func address() throws -> String { try TestEnvironment.value(addressVariable) }

    /// The server's default null sink.
    func sink() throws -> String { try TestEnvironment.value(sinkVariable) }

    /// The engine's output to `sink` (the default null sink when `nil`) on this server.
    func output(sink: String? = nil) throws -> AudioOutput {
        .pulseAudio(server: try address(), sink: try sink ?? self.sink())
    }
}
