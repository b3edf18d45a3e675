import Foundation
import StreamPlay

/// 2. Seek latency: from the seek (or, for commands, the spawn with a start offset) to the
/// first sample of the new position at the monitor, and whether a Range request fetched it.
enum SeekLatency: Scenario {
    static let key = "seek"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "seek.mp3"
        let target = try context.manifest.file(file).seekTo ?? 0
        let result = ScenarioResult(
            key: key, title: "2. Seek latency",
            method: "\(file) is silent up to \(Int(target)) s and sound after. \(method(target: target)) \"Range\" is whether the access log shows a Range request from past byte 0. gst-launch has no start option: GStreamer's row is Benchmarks/Peers/gst-play-from, playbin prerolled, then one flushing accurate seek, then played.",
            metrics: [
                Metric(key: "seek", title: "Seek to sound", unit: "ms", lowerIsBetter: true),
                Metric(key: "range", title: "Range request", unit: "yes/no", lowerIsBetter: nil),
            ])
        let sink = try context.sinks(1)[0]
        for round in 0..<context.rounds {
            for subject in context.subjects where subject != .pacatFloor {
                guard let trial = measure(subject, file: file, to: target, on: sink, context: context) else { continue }
                result.record(subject, "seek", round: round, trial.seconds.map { $0 * 1000 })
                result.record(subject, "range", round: round, trial.usedRange ? 1 : 0)
            }
        }
        return [result]
    }

    /// How the seek is timed, for the scenarios' method text (a sentence of its own).
    static func method(target: Double) -> String {
        "The library plays it, and once playing is told `seek(to: \(Int(target)))`: from that call to the first sound. The commands are started with that offset (`--start`, `-k`, `--start=`, `-ss`, and GStreamer's playbin through gst-play-from): from the spawn to the first sound, so their figure includes their start-up (scenario 0 and 1 show how much)."
    }

    /// One trial: `subject` plays `file` (a path under the media directory, silent up to
    /// `target`) from nginx on `sink`, from `target` on. Nil when the subject cannot start at
    /// an offset (GStreamer without gst-play-from); `seconds` is nil when no sound came within `timeout` seconds.
    /// `usedRange`: a request of the trial asked for a Range past byte 0.
    static func measure(_ subject: Subject, file: String, to target: Double, on sink: BenchSink,
                        context: BenchContext, timeout: Double = 15) -> (seconds: Double?, usedRange: Bool)? {
        let tag = context.nextTrialTag()
        let url = context.httpURL(file, tag: tag)
        let seconds: Double?
        if subject == .library {
            seconds = librarySeek(url, to: target, on: sink, context: context, timeout: timeout)
        } else if let command = subject.command(url: url, start: target, streamplay: context.streamplay) {
            seconds = context.spawnToSound(command, subject: subject, on: sink, timeout: timeout)
        } else {
            return nil
        }
        return (seconds, context.usedRange(tag: tag))
    }

    private static func librarySeek(_ url: String, to target: Double, on sink: BenchSink, context: BenchContext,
                                    timeout: Double) -> Double? {
        context.settle(sink)
        let player = sink.libraryPlayer
        player.play(.remote(url))
        let deadline = MonotonicClock.now() + 10
        while player.state != .playing, MonotonicClock.now() < deadline { MonotonicClock.sleep(0.005) }
        guard player.state == .playing else {
            player.stop()
            return nil
        }
        MonotonicClock.sleep(0.3)
        let ask = MonotonicClock.now()
        player.seek(to: target)
        let seconds = context.timeToSound(on: sink, ask: ask, timeout: timeout)
        if seconds == nil {
            // Why, for whoever reads the run's log: a failed play, or one that went on in silence.
            let position = player.position.map { String(format: "%.2f s", $0) } ?? "none"
            FileHandle.standardError.write(Data(
                "streamplay-bench: no sound after the library's seek in \(url): state \(player.state), position \(position)\n".utf8))
        }
        player.stop()
        return seconds
    }
}
