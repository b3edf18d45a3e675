/// 3. Buffering under a throttled link: nginx's limit_rate at 1.5×, 1.1× and 0.9× the
/// bitrate; time to first audio and the rebuffers heard in the recording.
enum ThrottledLinks: Scenario {
    static let key = "throttle"
    static let factors = [1.5, 1.1, 0.9]

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "short.mp3"
        let track = try context.manifest.file(file)
        let subjects = context.subjects.filter { $0 != .pacatFloor }
        var results: [ScenarioResult] = []
        for factor in factors {
            let rate = Int(Double(context.manifest.bitrate) / 8 * factor)
            let result = ScenarioResult(
                key: "\(key)-\(factor)", title: "3. Throttled link at \(factor)× the bitrate (\(rate) B/s)",
                method: "\(file) (\(Int(track.seconds)) s, \(context.manifest.bitrate / 1000) kbps) from nginx with `limit_rate \(rate)`, played to the end. All players run at once, each on its own null sink (the link, not the CPU, is the limit). A rebuffer is a silent stretch of at least \(Int(PlaybackTrace.minimumGap * 1000)) ms between the first and the last sound (the signal has none); \"heard\" is the audio heard in total (track: \(track.seconds) s).",
                metrics: [
                    Metric(key: "ttfa", title: "First audio", unit: "ms", lowerIsBetter: true),
                    Metric(key: "rebuffers", title: "Rebuffers", unit: "count", lowerIsBetter: nil),
                    Metric(key: "stalled", title: "Time rebuffering", unit: "s", lowerIsBetter: nil),
                    Metric(key: "heard", title: "Audio heard", unit: "s", lowerIsBetter: nil),
                    Metric(key: "reported", title: "Rebuffers the Player counted", unit: "count", lowerIsBetter: nil),
                ])
            for round in 0..<context.rounds {
                let tag = context.nextTrialTag()
                let run = try SideBySide(subjects, context: context) { _ in
                    context.httpURL("rate/\(rate)/\(file)", tag: tag)
                }
                run.waitForAll(timeout: track.seconds / factor + 30)
                for player in run.runs {
                    let trace = player.trace()
                    result.record(player.subject, "ttfa", round: round, trace.map { $0.firstSound * 1000 })
                    result.record(player.subject, "rebuffers", round: round, trace.map { Double($0.gaps.count) })
                    result.record(player.subject, "stalled", round: round, trace.map { $0.gaps.reduce(0, +) })
                    result.record(player.subject, "heard", round: round, trace?.heard)
                    if let statistics = player.statistics {
                        result.record(player.subject, "reported", round: round, Double(statistics.rebufferCount))
                    }
                }
            }
            results.append(result)
        }
        return results
    }
}
