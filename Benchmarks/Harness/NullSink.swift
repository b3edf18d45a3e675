import Foundation

/// A PulseAudio null sink loaded for the harness (`module-null-sink`, 44.1 kHz s16 stereo, as
/// the test servers' own), unloaded by ``unload()``. Nothing reads its monitor: a recorded
/// sink is a ``BenchSink``.
final class NullSink {
    let name: String
    /// The sound server the sink is on (as in `PULSE_SERVER`); nil: `PULSE_SERVER`'s.
    let server: String?
    private let module: String

    init(name: String, server: String? = nil) throws {
        self.name = name
        self.server = server
        let output = CommandOutput.firstLine(Self.pactl(server) + [
            "load-module", "module-null-sink", "sink_name=\(name)", "format=s16le", "rate=44100",
            "channels=2", "channel_map=front-left,front-right",
        ])
        guard let output, let module = Int(output.trimmingCharacters(in: .whitespaces)) else {
            throw HarnessError("pactl could not load a null sink named \(name): \(output ?? "no answer")")
        }
        self.module = String(module)
    }

    /// Unloads the sink (`pactl unload-module`).
    func unload() {
        _ = CommandOutput.firstLine(Self.pactl(server) + ["unload-module", module])
    }

    /// `pactl` for `server`.
    private static func pactl(_ server: String?) -> [String] {
        ["pactl"] + (server.map { ["--server=\($0)"] } ?? [])
    }
}
