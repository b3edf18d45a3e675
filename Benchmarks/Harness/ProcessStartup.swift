/// 0. What starting the program costs before it does anything: spawn to exit of `--version`.
enum ProcessStartup: Scenario {
    static let key = "startup"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let result = ScenarioResult(
            key: key, title: "0. Process start-up",
            method: "Spawn to exit of each program's version command (`streamplay --version`, `mpg123 --version`, ...): the fixed cost a command pays before it plays. No audio.",
            metrics: [Metric(key: "startup", title: "Spawn to exit", unit: "ms", lowerIsBetter: true)])
        for round in 0..<context.rounds {
            for subject in context.subjects {
                let command: [String]
                switch subject {
                case .streamplay: command = [context.streamplay, "--version"]
                case .mpg123, .mpv, .gstreamer: command = [subject.program!, "--version"]
                case .ffplay: command = ["ffplay", "-version"]
                case .library, .pacatFloor, .positionProbe, .ffmpegDecode: continue
                }
                let start = MonotonicClock.now()
                guard let child = try? ChildProcess(command) else {
                    result.record(subject, "startup", round: round, nil)
                    continue
                }
                let exited = child.wait(timeout: 10)
                result.record(subject, "startup", round: round, exited ? (MonotonicClock.now() - start) * 1000 : nil)
            }
        }
        return [result]
    }
}
