import Foundation

/// 6. CPU seconds per second of audio and peak resident memory, playing the 10 minute track.
enum CPUAndMemory: Scenario {
    static let key = "cpu"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "long.mp3"
        let warmUp = context.smoke ? 2.0 : 5.0
        let window = context.smoke ? 5.0 : 30.0
        let subjects = context.subjects.filter { $0 != .pacatFloor && $0 != .library }
        let result = ScenarioResult(
            key: key, title: "6. CPU and memory",
            method: "Each command plays \(file) (\(Int(try context.manifest.file(file).seconds)) s) from nginx, all at once, each on its own sink, for \(Int(warmUp + window)) s. \"Steady CPU\": CPU time of all the process's threads (from /proc, per-thread scheduler statistics) over the \(Int(window)) s after the first \(Int(warmUp)) s, per second of audio. \"All CPU\": the kernel's total for the process (start-up included) per second it ran. Peak memory: the process's peak resident set (VmHWM) just before it is stopped; it counts the pages of shared libraries it touched (libcurl with OpenSSL, libpulse, the Swift runtime), which other processes share. Private memory: its anonymous resident memory (RssAnon) at that moment, what it costs on its own. StreamPlay is measured as its command (the library plus argument parsing).",
            metrics: [
                Metric(key: "steady", title: "Steady CPU", unit: "ms/s", lowerIsBetter: true),
                Metric(key: "total", title: "All CPU", unit: "ms/s", lowerIsBetter: true),
                Metric(key: "rss", title: "Peak memory", unit: "MiB", lowerIsBetter: true),
                Metric(key: "private", title: "Private memory", unit: "MiB", lowerIsBetter: true),
            ])
        for round in 0..<context.rounds {
            for sample in try measureRound(subjects, file: file, warmUp: warmUp, window: window, context: context) {
                result.record(sample.subject, "steady", round: round, sample.steady)
                result.record(sample.subject, "total", round: round, sample.total)
                result.record(sample.subject, "rss", round: round, sample.peakMiB)
                result.record(sample.subject, "private", round: round, sample.privateMiB)
            }
        }
        return [result]
    }
}

/// One command's figures of one round of ``CPUAndMemory/measureRound(_:file:warmUp:window:context:)``.
struct CPUSample {
    let subject: Subject
    /// CPU ms per second over the window (nil: not measured, or it did not play it through).
    let steady: Double?
    /// The kernel's CPU ms for the whole process per second it ran.
    let total: Double?
    /// VmHWM and RssAnon just before the stop, in MiB.
    let peakMiB: Double?
    let privateMiB: Double?
}

extension CPUAndMemory {
    /// One round: every command of `subjects` plays `file` (a path under the media directory)
    /// from nginx, all at once, each on its own sink, for `warmUp` + `window` seconds; then
    /// each is stopped. The library (no process of its own) and pacat are left out.
    static func measureRound(_ subjects: [Subject], file: String, warmUp: Double, window: Double,
                             context: BenchContext) throws -> [CPUSample] {
        let commands = subjects.filter { $0 != .pacatFloor && $0 != .library }
        let tag = context.nextTrialTag()
        let run = try SideBySide(commands, context: context) { _ in context.httpURL(file, tag: tag) }
        MonotonicClock.sleep(warmUp)
        let before = run.runs.map { ($0.child.flatMap(ThreadCPU.seconds), MonotonicClock.now()) }
        MonotonicClock.sleep(window)
        let after = run.runs.map { ($0.child.flatMap(ThreadCPU.seconds), MonotonicClock.now()) }
        let peaks = run.runs.map { $0.child?.peakResidentKiB }
        let privates = run.runs.map { $0.child.flatMap { ProcFile.statusField("RssAnon", of: String($0.pid)) } }
        let stops = run.runs.map { player -> (ChildProcess.Exit?, Double) in
            let exit = player.child?.terminate()
            return (exit, MonotonicClock.now() - player.ask)
        }
        return run.runs.enumerated().map { index, player in
            let steady: Double? = {
                guard let start = before[index].0, let end = after[index].0 else { return nil }
                return (end - start) / (after[index].1 - before[index].1) * 1000
            }()
            // A player that exited before the end of the window did not play it through.
            let playedThrough = stops[index].1 >= warmUp + window
            return CPUSample(
                subject: player.subject, steady: playedThrough ? steady : nil,
                total: stops[index].0.map { $0.cpuSeconds / stops[index].1 * 1000 },
                peakMiB: peaks[index].map { Double($0) / 1024 }, privateMiB: privates[index].map { Double($0) / 1024 })
        }
    }
}

/// CPU time of a live process, summed over its threads' scheduler statistics (nanoseconds),
/// finer than the clock ticks of /proc/PID/stat.
enum ThreadCPU {
    static func seconds(_ child: ChildProcess) -> Double? {
        let directory = "/proc/\(child.pid)/task"
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var total = 0.0
        for task in tasks {
            guard let text = ProcFile.read("\(directory)/\(task)/schedstat"),
                  let nanoseconds = text.split(separator: " ").first.flatMap({ Double($0) }) else { continue }
            total += nanoseconds * 1e-9
        }
        return total
    }
}
