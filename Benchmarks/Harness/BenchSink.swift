import Foundation
import StreamPlay

/// A null sink loaded for the harness, its monitor recorder, and a library Player bound to it.
/// Several sinks let players that do not compete for time (throttled links, CPU use) run side
/// by side, each heard on its own monitor.
final class BenchSink {
    let name: String
    let recorder: MonitorRecorder
    private let module: String
    private var player: Player?

    init(name: String) throws {
        self.name = name
        let output = CommandOutput.firstLine([
            "pactl", "load-module", "module-null-sink", "sink_name=\(name)", "format=s16le", "rate=44100",
            "channels=2", "channel_map=front-left,front-right",
        ])
        guard let output, let module = Int(output.trimmingCharacters(in: .whitespaces)) else {
            throw HarnessError("pactl could not load a null sink named \(name): \(output ?? "no answer")")
        }
        self.module = String(module)
        recorder = try MonitorRecorder(sink: name)
    }

    /// Stops the player and the recorder and unloads the sink.
    func close() {
        player?.stop()
        player = nil
        recorder.stop()
        _ = CommandOutput.firstLine(["pactl", "unload-module", module])
    }

    /// The library Player that plays on this sink; one per sink, reused like an app would.
    var libraryPlayer: Player {
        if let player { return player }
        let made = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: name)))
        player = made
        return made
    }
}
