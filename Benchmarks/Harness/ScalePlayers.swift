import ArgumentParser
import Foundation
import StreamPlay
import StreamPlayTesting

/// The child side of the scale scenario: N `Player`s in this one process, all playing the same
/// URL at once to the paced null output or to PulseAudio sinks, until every one has ended
/// or failed. The harness reads the process's CPU time from the kernel when it exits; the
/// child prints what only it can see:
///
///     ended COUNT
///     failed DESCRIPTION      (the first failure, if any)
///     stuck DESCRIPTION       (at the timeout: how far the unfinished players got, the
///                              machine's load, and the sound server's streams)
///     hwm KIB                 (peak resident set, VmHWM, read after every player finished)
enum ScalePlayers {
    /// Where the players' audio goes.
    enum Output: String, ExpressibleByArgument, CaseIterable {
        /// StreamPlayTesting's `RecordingSink`, paced and keeping nothing: discarded at the pace of
        /// real time.
        case null
        /// PulseAudio sinks (PULSE_SERVER from the environment), the players spread over them.
        case pulse
    }

    /// Plays `url` with `count` players to `output` (`sinks`: the PulseAudio sinks' names, taken
    /// in turn; none: the default sink), then prints the lines above. Returns 0 when every
    /// player ended, 1 otherwise.
    static func play(url: String, count: Int, output: Output, sinks: [String], timeout: Double) -> Int32 {
        let players = (0..<count).map { index in
            let configuration: PlayerConfiguration = switch output {
            case .null: PlayerConfiguration(output: .custom { RecordingSink(pacedAhead: 0.2, keepingSamples: false) })
            case .pulse: PlayerConfiguration(output: .pulseAudio(sink: sinks.isEmpty ? nil : sinks[index % sinks.count]))
            }
            return Player(configuration: configuration)
        }
        let start = MonotonicClock.now()
        for player in players { player.play(.remote(url)) }
        // Polled, as the other children do (no concurrency of their own). A player starts
        // idle, so the first half second does not count as finished.
        var pending = players
        while !pending.isEmpty, MonotonicClock.now() - start < timeout {
            MonotonicClock.sleep(0.05)
            if MonotonicClock.now() - start > 0.5 { pending.removeAll { $0.state.isFinal } }
        }
        var ended = 0
        var failure: String?
        for player in players {
            if case .ended = player.state {
                ended += 1
            } else if failure == nil {
                failure = "\(player.state)"
            }
        }
        print("ended \(ended)")
        if let failure { print("failed \(failure)") }
        if !pending.isEmpty { print("stuck \(describeStuck(pending, output: output))") }
        if let hwm = ProcFile.statusField("VmHWM", of: "self") { print("hwm \(hwm)") }
        fflush(nil)  // every stream: the report must be on disk before the players stop
        for player in players { player.stop() }
        return ended == count ? 0 : 1
    }
}

extension ScalePlayers {
    /// What the players still unfinished at the timeout show, to tell players that stalled from
    /// players that went on slowly: their positions and buffers, their rebuffers, the load
    /// average, and (to PulseAudio) how many streams the server lists and how many of them are
    /// corked.
    static func describeStuck(_ players: [Player], output: Output) -> String {
        let positions = players.compactMap(\.position).sorted()
        let buffered = players.map(\.bufferedFraction).sorted()
        let rebuffers = players.map(\.statistics.rebufferCount).reduce(0, +)
        var parts = ["\(players.count) unfinished"]
        if let first = positions.first, let last = positions.last {
            parts.append(String(format: "position %.1f–%.1f s (median %.1f)", first, last, positions[positions.count / 2]))
        }
        if let first = buffered.first, let last = buffered.last {
            parts.append(String(format: "buffered %.2f–%.2f", first, last))
        }
        parts.append("\(rebuffers) rebuffers")
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            parts.append("load \(load.split(separator: " ").prefix(3).joined(separator: " "))")
        }
        if output == .pulse,
           let listed = ChildProcess.runToEnd(["pactl", "list", "sink-inputs"], environment: ["LC_ALL": "C"], timeout: 3) {
            let streams = listed.lines.filter { $0.hasPrefix("Sink Input #") }.count
            let corked = listed.lines.filter { $0.trimmingCharacters(in: .whitespaces) == "Corked: yes" }.count
            parts.append("the server lists \(streams) streams, \(corked) corked")
        }
        return parts.joined(separator: "; ")
    }
}

/// The child side of the scale scenario (started by the harness itself).
struct ScaleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale", abstract: "Play one URL with many players in this process, to the end.",
        shouldDisplay: false)

    @Option(help: "The stream every player plays.")
    var url: String

    @Option(help: "How many players (0: none, the process's own baseline).")
    var players: Int

    @Option(help: "null (discarded at real-time pace) or pulse.")
    var output: ScalePlayers.Output

    @Option(help: "The PulseAudio sinks, separated by commas, the players spread over them (with --output pulse).")
    var sink: String?

    @Option(help: "Seconds to wait for every player to finish.")
    var timeout: Double

    func run() throws {
        let sinks = sink.map { $0.split(separator: ",").map(String.init) } ?? []
        let status = ScalePlayers.play(url: url, count: players, output: output, sinks: sinks, timeout: timeout)
        if status != 0 { throw ExitCode(status) }
    }
}
