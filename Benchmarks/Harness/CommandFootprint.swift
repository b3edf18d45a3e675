import Foundation

/// 0b. What the `streamplay` command costs to start and to run, against mpg123 in the same
/// round, with the targets of issue 16: `--version` spawn to exit, peak memory printing the
/// version, spawn to first audio, and peak memory and CPU while playing an MP3 to PulseAudio.
/// First audio and peak memory are measured from a file too, which the command plays without
/// loading libcurl.
enum CommandFootprint: Scenario {
    static let key = "footprint"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "long.mp3"
        let spawns = context.smoke ? 5 : 21
        let window = context.smoke ? 3.0 : 10.0
        let subjects = [Subject.streamplay, .mpg123].filter(context.subjects.contains)
        let result = ScenarioResult(
            key: key, title: "0b. Start-up and memory of the command",
            method: "`streamplay` against mpg123, each round: \"Version\" is spawn to exit of `--version`, the median of \(spawns) spawns (the exit is looked for every 0.1 ms). \"Memory, version\" is the peak resident set of printing the version, as GNU time reports it (its maxrss). \"First audio\" is spawn to the first non-silent sample at the null sink's monitor, playing \(file) from nginx, one player at a time (as scenario 1); \"First audio, file\" the same with the file's path. Then both play \(file) from nginx at once, each on its own null sink, for \(Int(window)) s: \"Memory, playing\" is the peak resident set (VmHWM) just before the stop; \"CPU\" is the kernel's CPU time for the whole process (start-up, playing and stopping) per second from spawn to stop. \"Memory, file\" is the peak of the same with the file's path, a window of its own.",
            metrics: [
                Metric(key: "version", title: "Version", unit: "ms", lowerIsBetter: true),
                Metric(key: "versionRSS", title: "Memory, version", unit: "MiB", lowerIsBetter: true),
                Metric(key: "ttfa", title: "First audio", unit: "ms", lowerIsBetter: true),
                Metric(key: "ttfaFile", title: "First audio, file", unit: "ms", lowerIsBetter: true),
                Metric(key: "rss", title: "Memory, playing", unit: "MiB", lowerIsBetter: true),
                Metric(key: "rssFile", title: "Memory, file", unit: "MiB", lowerIsBetter: true),
                Metric(key: "cpu", title: "CPU", unit: "ms/s", lowerIsBetter: true),
            ],
            targets: [
                Target("`--version`, spawn to exit", metric: "version", subject: .streamplay, reference: .mpg123, limit: 2.0),
                Target("Spawn to first audio", metric: "ttfa", subject: .streamplay, reference: .mpg123, limit: 1.0),
                Target("Peak memory playing an MP3", metric: "rss", subject: .streamplay, reference: .mpg123, limit: 1.5),
                Target("CPU per second of audio", metric: "cpu", subject: .streamplay, reference: .mpg123, limit: 1.2),
            ])
        let sink = try context.sinks(1)[0]
        // A command that plays only files never loads libcurl (see NetworkArguments).
        let path = "\(context.mediaDirectory)/\(file)"
        for round in 0..<context.rounds {
            for subject in subjects {
                let version = versionCommand(subject, context)
                result.record(subject, "version", round: round, spawnToExit(version, times: spawns).map { $0 * 1000 })
                result.record(subject, "versionRSS", round: round, PeakMemory.ofRun(version).map { Double($0) / 1024 })
                let url = context.httpURL(file, tag: context.nextTrialTag())
                let seconds = subject.command(url: url, streamplay: context.streamplay)
                    .flatMap { context.spawnToSound($0, subject: subject, on: sink) }
                result.record(subject, "ttfa", round: round, seconds.map { $0 * 1000 })
                let fromFile = subject.command(url: path, streamplay: context.streamplay)
                    .flatMap { context.spawnToSound($0, subject: subject, on: sink) }
                result.record(subject, "ttfaFile", round: round, fromFile.map { $0 * 1000 })
            }
            let tag = context.nextTrialTag()
            let run = try SideBySide(subjects, context: context) { _ in context.httpURL(file, tag: tag) }
            MonotonicClock.sleep(window)
            let peaks = run.runs.map { $0.child?.peakResidentKiB }
            for (index, player) in run.runs.enumerated() {
                let stop = MonotonicClock.now()
                // A player that exited before the end of the window did not play it through.
                let exitedEarly = player.child?.hasExited ?? true
                let exit = player.child?.terminate()
                result.record(player.subject, "rss", round: round, exitedEarly ? nil : peaks[index].map { Double($0) / 1024 })
                result.record(player.subject, "cpu", round: round,
                              exitedEarly ? nil : exit.map { $0.cpuSeconds / (stop - player.ask) * 1000 })
            }
            let local = try SideBySide(subjects, context: context) { _ in path }
            MonotonicClock.sleep(window)
            let localPeaks = local.runs.map { $0.child?.peakResidentKiB }
            for (index, player) in local.runs.enumerated() {
                let exitedEarly = player.child?.hasExited ?? true
                player.child?.terminate()
                result.record(player.subject, "rssFile", round: round,
                              exitedEarly ? nil : localPeaks[index].map { Double($0) / 1024 })
            }
        }
        if let floor = PeakMemory.ofRun(["true"]) {
            result.notes.append(String(format: "GNU time's own floor: `true` peaks at %.1f MiB.", Double(floor) / 1024))
        }
        return [result]
    }

    private static func versionCommand(_ subject: Subject, _ context: BenchContext) -> [String] {
        subject == .streamplay ? [context.streamplay, "--version"] : [subject.program!, "--version"]
    }

    /// The median seconds from spawn to exit over `times` runs (after one unmeasured run that
    /// warms the page cache); nil when any run failed or hung.
    private static func spawnToExit(_ command: [String], times: Int) -> Double? {
        guard let warm = try? ChildProcess(command), warm.wait(timeout: 10) else { return nil }
        var durations: [Double] = []
        for _ in 0..<times {
            let start = MonotonicClock.now()
            guard let child = try? ChildProcess(command), child.wait(timeout: 10) else { return nil }
            durations.append(MonotonicClock.now() - start)
        }
        return Summary(durations)?.median
    }
}

/// The peak resident memory of a short-lived command. The harness cannot read VmHWM of a
/// process that has already exited, and the kernel's maxrss of a child the harness spawned
/// starts from the harness's own (exec carries it over), so GNU time, a small process that
/// forks, runs the command and reports its maxrss.
enum PeakMemory {
    /// KiB, or nil when GNU time is not installed or the command failed.
    static func ofRun(_ command: [String]) -> Int? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(getpid())-maxrss").path
        defer { unlink(path) }
        guard ChildProcess.runToEnd(["/usr/bin/time", "-f", "%M", "-o", path] + command, timeout: 10)?
            .exit.status == 0 else { return nil }
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
