import Foundation

/// 6c. Many players in one process (issue 16, "Scale"): N players, each playing the same MP3
/// from nginx to the end, to a null output paced in real time and to PulseAudio sinks. CPU
/// per stream and memory per player at N = 1, 10, 50 and 100, and whether the cost stays linear.
/// Each N runs in a child process of its own (`streamplay-bench scale`), so the figures are
/// the kernel's for that process alone, less those of the same child with no players.
enum Scale: Scenario {
    static let key = "scale"
    /// A per-player cost at the largest N within this factor of the smaller N's is "linear".
    static let linearLimit = 1.25
    /// The PulseAudio daemon mixes at most 32 streams into one sink (the streams past that wait
    /// their turn), so the players are spread over this many null sinks: at N=100, 25 each.
    /// (All players of the child are one client of the server, whatever N: the 64-client limit
    /// does not apply.)
    static let pulseSinks = 4

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "short.mp3"
        let seconds = try context.manifest.file(file).seconds
        let counts = context.smoke ? [1, 3] : [1, 10, 50, 100]
        // Plain null sinks: no monitor is read here, and recorded ones would load the machine
        // the players share (see BenchSink).
        var sinks: [NullSink] = []
        defer { sinks.forEach { $0.unload() } }
        for index in 0..<pulseSinks { sinks.append(try NullSink(name: "streamplay_bench_scale_\(index)")) }
        let sinkNames = sinks.map(\.name).joined(separator: ",")
        let results = ScalePlayers.Output.allCases.map { output in
            makeResult(output, counts: counts, file: file, seconds: seconds)
        }
        var baselines: [(cpu: Double, hwm: Double)] = []
        for round in 0..<context.rounds {
            let tag = context.nextTrialTag()
            let url = context.httpURL(file, tag: tag)
            // The process with no players: what every N's figures are taken from.
            let baseline = runChild(players: 0, output: .null, url: url, sink: nil, seconds: seconds)
            guard let base = baseline.run, base.ended == 0 else {
                throw HarnessError("the scale scenario's child with no players failed: \(baseline.problem ?? "")")
            }
            baselines.append((base.cpuSeconds, base.hwmKiB))
            for (output, result) in zip(ScalePlayers.Output.allCases, results) {
                var everyCountEnded = true
                for count in counts {
                    let outcome = runChild(players: count, output: output, url: url,
                                           sink: output == .pulse ? sinkNames : nil, seconds: seconds)
                    let allEnded = outcome.run.map { $0.ended == count } ?? false
                    result.record(.library, "ended\(count)", round: round, allEnded ? 1 : 0)
                    if !allEnded { everyCountEnded = false }
                    // Figures only from a round where every player played to the end.
                    guard allEnded, let run = outcome.run else {
                        result.notes.append("N=\(count), round \(round + 1): \(outcome.problem ?? "not every player ended"); its figures are left out.")
                        continue
                    }
                    result.record(.library, "cpu\(count)", round: round,
                                  (run.cpuSeconds - base.cpuSeconds) / Double(count) / seconds * 1000)
                    result.record(.library, "mem\(count)", round: round,
                                  (run.hwmKiB - base.hwmKiB) / Double(count) / 1024)
                }
                result.record(.library, "endedAll", round: round, everyCountEnded ? 1 : 0)
            }
        }
        if let cpu = Summary(baselines.map(\.cpu)), let hwm = Summary(baselines.map(\.hwm)) {
            let note = String(format: "Baseline, the child with no players (median of %d): %.0f ms of CPU, peak memory %.1f MiB.",
                              cpu.count, cpu.median * 1000, hwm.median / 1024)
            results.forEach { $0.notes.insert(note, at: 0) }
        }
        return results
    }

    private static func makeResult(_ output: ScalePlayers.Output, counts: [Int], file: String,
                                   seconds: Double) -> ScenarioResult {
        // The targets: per-stream CPU at the largest N over N=1, per-player memory over the
        // second N (at N=1 the once-per-process share falls on one player).
        let largest = counts[counts.count - 1]
        let smallest = counts[0]
        let middle = counts.count > 2 ? counts[1] : counts[0]
        let outputName = output == .null ? "paced null output" : "PulseAudio"
        let outputText = output == .null
            ? "a null output that discards audio at the pace of real time (StreamPlayTesting's paced `RecordingSink`, through `.custom`, keeping no samples)"
            : "PulseAudio, every player a stream of its own over the process's one connection (one client of the server), spread over \(pulseSinks) null sinks whose monitors nobody reads (the daemon mixes at most 32 streams into one sink)"
        var metrics: [Metric] = []
        for count in counts {
            metrics.append(Metric(key: "cpu\(count)", title: "CPU per stream, N=\(count)", unit: "ms/s", lowerIsBetter: nil))
        }
        for count in counts {
            metrics.append(Metric(key: "mem\(count)", title: "Memory per player, N=\(count)", unit: "MiB", lowerIsBetter: nil))
        }
        for count in counts {
            metrics.append(Metric(key: "ended\(count)", title: "All ended, N=\(count)", unit: "yes/no", lowerIsBetter: nil))
        }
        metrics.append(Metric(key: "endedAll", title: "All ended, every N", unit: "yes/no", lowerIsBetter: nil))
        return ScenarioResult(
            key: "\(key)-\(output.rawValue)",
            title: "6c. Scale: N players in one process, \(outputName)",
            method: "A child process (`streamplay-bench scale`) makes N `Player`s, N = \(counts.map(String.init).joined(separator: ", ")), and all play \(file) (\(String(format: "%.0f", seconds)) s) from nginx at once, to \(outputText), until each has ended or failed. Each round also runs the same child with no players: its baseline. \"CPU per stream\": the kernel's CPU time (user + system) of the whole child less the baseline's, ÷ N ÷ seconds of audio. \"Memory per player\": the child's peak resident set (VmHWM, read after every player finished) less the baseline's, ÷ N; it includes what the first player loads once for all. \"All ended\": rounds in which all N players reached the end; a round in which any did not gives no CPU or memory figure, and the target that every player end, at every N, in every round is not met. Linear: the per-stream CPU at N=\(largest) ÷ at N=\(smallest), and the per-player memory at N=\(largest) ÷ at N=\(middle), each at most \(String(format: "%.2f", linearLimit)).",
            metrics: metrics,
            targets: [
                Target("Linear CPU, \(outputName): per stream at N=\(largest) ÷ at N=\(smallest)", metric: "cpu\(largest)",
                       over: "cpu\(smallest)", subject: .library, limit: linearLimit),
                Target("Linear memory, \(outputName): per player at N=\(largest) ÷ at N=\(middle)", metric: "mem\(largest)",
                       over: "mem\(middle)", subject: .library, limit: linearLimit),
                // The ratios above come only from rounds in which every player ended.
                Target("Every player ended, \(outputName), at every N", yesInEveryRound: "endedAll", subject: .library),
            ])
    }

    /// What one child reported: players that ended, its CPU seconds and its peak memory (KiB).
    private struct ChildRun {
        let ended: Int
        let cpuSeconds: Double
        let hwmKiB: Double
    }

    /// Runs the child with `players` players; `problem` says why a run gave no figures, or
    /// what failed in one that did.
    private static func runChild(players: Int, output: ScalePlayers.Output, url: String, sink: String?,
                                 seconds: Double) -> (run: ChildRun?, problem: String?) {
        let timeout = seconds + 30
        var command = [CommandLine.arguments[0], "scale", "--url", url, "--players", String(players),
                       "--output", output.rawValue, "--timeout", String(timeout)]
        if let sink { command += ["--sink", sink] }
        // The margin covers making the players, the report at the timeout, and stopping them.
        guard let finished = ChildProcess.runToEnd(command, timeout: timeout + 30) else {
            return (nil, "the child did not start, or did not finish within \(Int(timeout + 30)) s")
        }
        let lines = finished.lines
        func field(_ name: String) -> Substring? {
            lines.first { $0.hasPrefix(name + " ") }.map { $0.dropFirst(name.count + 1) }
        }
        guard let ended = field("ended").flatMap({ Int($0) }), let hwm = field("hwm").flatMap({ Double($0) }) else {
            return (nil, "the child exited with status \(finished.exit.status) and no report: \(lines.suffix(3).joined(separator: " / "))")
        }
        let stuck = field("stuck").map { "; at the timeout: \($0)" } ?? ""
        let problem = ended == players ? nil
            : "\(ended) of \(players) players ended; the first other: \(field("failed") ?? "?")\(stuck)"
        return (ChildRun(ended: ended, cpuSeconds: finished.exit.cpuSeconds, hwmKiB: hwm), problem)
    }
}
