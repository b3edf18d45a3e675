/// F. The other formats (AAC in fragmented-MP4 HLS, M4A, FLAC, Ogg Opus) against mpv, ffplay
/// and GStreamer: first audio, seek, CPU and peak memory playing, measured as in scenarios 1, 2
/// and 6 (the same code, with the file as a parameter), and decode CPU against
/// `ffmpeg -f null`. One table per format, with its targets: the library's first audio and seek
/// at most 0.5× the best peer's, its decode CPU at most 1.1× ffmpeg's.
enum FormatScenario: Scenario {
    static let key = "formats"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let warmUp = context.smoke ? 1.0 : 5.0
        let window = context.smoke ? 2.0 : 30.0
        // mpg123 plays MPEG audio only; pacat is the floor of scenario 1 alone.
        let players = context.subjects.filter { $0 != .mpg123 && $0 != .pacatFloor }
        let sink = try context.sinks(1)[0]
        var results: [(BenchFormat, ScenarioResult, seekTo: Double, seconds: Double)] = []
        for (index, format) in BenchFormat.all.enumerated() {
            let long = try context.manifest.file(format.long)
            let seekTo = try context.manifest.file(format.seek).seekTo ?? long.seconds / 2
            results.append((format, result(format, number: index + 1, seekTo: seekTo, seekTimeout: seekTimeout(context),
                                           warmUp: warmUp, window: window, seconds: long.seconds),
                            seekTo, long.seconds))
        }
        for round in 0..<context.rounds {
            for (format, result, seekTo, seconds) in results {
                for subject in players {
                    guard let seconds = TimeToFirstAudio.measure(subject, file: format.long, on: sink, context: context)
                    else { continue }
                    result.record(subject, "ttfa", round: round, seconds.map { $0 * 1000 })
                }
                for subject in players {
                    guard let trial = SeekLatency.measure(subject, file: format.seek, to: seekTo, on: sink,
                                                          context: context, timeout: seekTimeout(context))
                    else { continue }
                    result.record(subject, "seek", round: round, trial.seconds.map { $0 * 1000 })
                }
                guard format.measuresCPU else { continue }
                for sample in try CPUAndMemory.measureRound(players, file: format.long, warmUp: warmUp, window: window,
                                                            context: context) {
                    result.record(sample.subject, "steady", round: round, sample.steady)
                    result.record(sample.subject, "rss", round: round, sample.peakMiB)
                }
                let location = format.isHLS ? context.httpURL(format.long, tag: context.nextTrialTag())
                    : context.mediaDirectory + "/" + format.long
                for subject in DecodeCPU.subjects where subject == .ffmpegDecode ? context.hasFFmpegDecode
                    : players.contains(subject) {
                    guard let command = DecodeCPU.command(subject, location: location, context: context) else { continue }
                    result.record(subject, "decode", round: round, DecodeCPU.measure(command, seconds: seconds))
                }
            }
        }
        return results.map(\.1)
    }

    /// Seconds a seek may take before it counts as failed. FFmpeg 5.1's HLS demuxer, which
    /// ffplay and mpv use, finds no audio after a seek into fragmented-MP4 HLS (`ffmpeg -ss`
    /// gives none): their trials would otherwise wait the default 15 s each.
    private static func seekTimeout(_ context: BenchContext) -> Double { context.smoke ? 3 : 5 }

    /// The empty result of one format, with its method and targets.
    private static func result(_ format: BenchFormat, number: Int, seekTo: Double, seekTimeout: Double,
                               warmUp: Double, window: Double, seconds: Double) -> ScenarioResult {
        var metrics = [
            Metric(key: "ttfa", title: "First audio", unit: "ms", lowerIsBetter: true),
            Metric(key: "seek", title: "Seek to sound", unit: "ms", lowerIsBetter: true),
        ]
        var targets = [
            Target("\(format.title): first audio", metric: "ttfa", subject: .library, bestPeerLimit: 0.5),
            Target("\(format.title): seek", metric: "seek", subject: .library, bestPeerLimit: 0.5),
        ]
        let served = format.isHLS ? "\(format.long) (and its segments)" : format.long
        var method = "\(format.title): \(served) and \(format.seek), \(Int(seconds)) s each, from nginx on 127.0.0.1; the signal of long.mp3, and in the second the silence of seek.mp3 up to \(Int(seekTo)) s. First audio as in scenario 1, playing the first, one player at a time. Seek as in scenario 2, to \(Int(seekTo)) s of the second, with a timeout of \(Int(seekTimeout)) s (none of these players needs more on loopback; a failure is counted as such). \(SeekLatency.method(target: seekTo)) GStreamer seeks through gst-play-from (gst-launch has no start option): playbin prerolled, one flushing accurate seek, then played."
        if format.measuresCPU {
            metrics += [
                Metric(key: "steady", title: "Steady CPU", unit: "ms/s", lowerIsBetter: true),
                Metric(key: "rss", title: "Peak memory", unit: "MiB", lowerIsBetter: true),
                // No "× best peer": no peer decodes alone; the target gives the ratio to ffmpeg.
                Metric(key: "decode", title: "Decode CPU", unit: "ms/s", lowerIsBetter: nil),
            ]
            targets.append(Target("\(format.title): decode CPU", metric: "decode", subject: .library,
                                  reference: .ffmpegDecode, limit: 1.1))
            method += " CPU and peak memory as in scenario 6: the commands play the first file side by side for \(Int(warmUp + window)) s; \"Steady CPU\" is the CPU of all threads over the last \(Int(window)) s per second, \"Peak memory\" VmHWM before the stop. The library has no process of its own there: its figures are the `streamplay` row's. \"Decode CPU\": the whole first file decoded as fast as it can be with no sound server, CPU time of the whole process (start-up included, from wait4) per second of audio: the library in a process of its own (`streamplay-bench decode`, the `.null` output), `streamplay --output null`, and `ffmpeg -nostdin -i FILE -f null -` (which also converts to 16-bit PCM, as the library does)\(format.isHLS ? ", all from nginx (HLS is played from a URL)" : ", all from the file on disk")."
        }
        return ScenarioResult(key: "formats-\(format.key)", title: "F\(number). \(format.title)", method: method,
                              metrics: metrics, targets: targets)
    }
}
