import Foundation
import StreamPlay

/// A null sink loaded for the harness, its monitor recorder, and a library Player bound to it.
/// Several sinks let players that do not compete for time (throttled links, CPU use) run side
/// by side, each heard on its own monitor.
///
/// A recorded sink is not free: its 2 ms stream of zeros and its monitor's reader keep the sound
/// server and both clients waking every few milliseconds (Benchmarks/README.md, "Keep-alive",
/// has the cost). So a scenario's sinks are unloaded when it ends
/// (``BenchContext/releaseSinks()``), and the scale scenario, which reads no monitor, plays to
/// plain ``NullSink``s.
final class BenchSink {
    let sink: NullSink
    let recorder: MonitorRecorder
    private var player: Player?

    var name: String { sink.name }
    /// The sound server the sink is on (as in `PULSE_SERVER`); nil: `PULSE_SERVER`'s.
    var server: String? { sink.server }

    init(name: String, server: String? = nil) throws {
        sink = try NullSink(name: name, server: server)
        do {
            recorder = try MonitorRecorder(sink: name, server: server)
        } catch {
            sink.unload()
            throw error
        }
        // Made with the sink, as an app makes its player at launch: making it begins libcurl's
        // load, which no play should then wait for (with libcurl linked, the process's start
        // paid for it).
        player = Self.makePlayer(server: server, sink: name)
    }

    /// Stops the player and the recorder and unloads the sink.
    func close() {
        player?.stop()
        player = nil
        recorder.stop()
        sink.unload()
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
