import Foundation

/// 4. Recovery from a dropped connection: the server closes the socket part-way through the
/// track (the fault server, paced at 1.5× the bitrate so the drop comes while playing).
enum DropRecovery: Scenario {
    static let key = "recovery"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "short.mp3"
        let track = try context.manifest.file(file)
        let rate = context.manifest.bitrate / 8 * 3 / 2
        let cut = track.bytes * 4 / 10
        let subjects = context.subjects.filter { $0 != .pacatFloor }
        let result = ScenarioResult(
            key: key, title: "4. Recovery from a dropped connection",
            method: "\(file) (\(track.seconds) s) paced at \(rate) B/s by the fault server, which closes the connection after \(cut) bytes (40%) on the first request; later requests (Range or not) are served in full at the same pace. All players at once, each on its own sink. \"Resumed\": sound came back after the drop and at least 95% of the track was heard. \"Outage\": the longest silence between first and last sound. \"Lost\": track length minus audio heard (negative: heard twice).",
            metrics: [
                Metric(key: "resumed", title: "Resumed", unit: "yes/no", lowerIsBetter: nil),
                Metric(key: "outage", title: "Outage", unit: "ms", lowerIsBetter: nil),
                Metric(key: "lost", title: "Audio lost", unit: "ms", lowerIsBetter: nil),
                Metric(key: "reported", title: "Rebuffers the Player counted", unit: "count", lowerIsBetter: nil),
            ],
            targets: [
                Target("Longest silence through a drop at 1.5×", metric: "outage", subject: .library,
                       atMost: BusyMachine.silenceLimit, unit: "ms"),
                Target("Longest silence through a drop at 1.5×", metric: "outage", subject: .streamplay,
                       atMost: BusyMachine.silenceLimit, unit: "ms"),
            ])
        for round in 0..<context.rounds {
            let tag = context.nextTrialTag()
            let run = try SideBySide(subjects, context: context) { subject in
                context.faultsURL("throttle-drop/\(rate)/\(cut)/\(file)", tag: "\(tag)-\(Subject.allCases.firstIndex(of: subject) ?? 0)")
            }
            run.waitForAll(timeout: track.seconds / 1.5 + 40)
            for player in run.runs {
                if let statistics = player.statistics {
                    result.record(player.subject, "reported", round: round, Double(statistics.rebufferCount))
                }
                guard let trace = player.trace() else {
                    result.record(player.subject, "resumed", round: round, 0)
                    result.record(player.subject, "outage", round: round, nil)
                    result.record(player.subject, "lost", round: round, nil)
                    continue
                }
                if let note = trace.gapNote(round: round, subject: player.subject) { result.notes.append(note) }
                let resumed = trace.heard >= 0.95 * track.seconds
                result.record(player.subject, "resumed", round: round, resumed ? 1 : 0)
                result.record(player.subject, "outage", round: round, (trace.gaps.max() ?? 0) * 1000)
                result.record(player.subject, "lost", round: round, (track.seconds - trace.heard) * 1000)
            }
        }
        result.notes.append("\"Lost\" counts against each player's own decode length: decoders that keep the encoder delay and padding (no gapless trim) hear up to ~50 ms more than the track.")
        return [result]
    }
}
