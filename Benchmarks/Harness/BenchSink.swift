import Foundation
import StreamPlay

/// A null sink loaded for the harness, its monitor recorder, and a library Player bound to it.
/// Several sinks let players that do not compete for time (throttled links, CPU use) run side
/// by side, each heard on its own monitor.
final class BenchSink {
    let name: String
    /// The sound server the sink is on (as in `PULSE_SERVER`); nil: `PULSE_SERVER`'s.
    let server: String?
    let recorder: MonitorRecorder
    private let module: String
    private var player: Player?

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
        recorder = try MonitorRecorder(sink: name, server: server)
        // Made with the sink, as an app makes its player at launch: making it begins libcurl's
        // load, which no play should then wait for (with libcurl linked, the process's start
        // paid for it).
        player = Self.makePlayer(server: server, sink: name)
    }

    /// `pactl` for `server`.
    private static func pactl(_ server: String?) -> [String] {
        ["pactl"] + (server.map { ["--server=\($0)"] } ?? [])
    }

    /// Stops the player and the recorder and unloads the sink.
    func close() {
        player?.stop()
        player = nil
        recorder.stop()
        _ = CommandOutput.firstLine(Self.pactl(server) + ["unload-module", module])
    }

    /// The library Player that plays on this sink; one per sink, made with it and reused, as an
    /// app would (made again if asked for after ``close()``).
    var libraryPlayer: Player {
        if let player { return player }
        let made = Self.makePlayer(server: server, sink: name)
        player = made
        return made
    }

    private static func makePlayer(server: String?, sink: String) -> Player {
        Player(configuration: PlayerConfiguration(output: .pulseAudio(server: server, sink: sink)))
    }
}
