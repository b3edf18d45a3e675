/// 1. Time to first audio: from the ask (the play() call, or the spawn) to the first sample
/// that is not silent at the sink's monitor.
enum TimeToFirstAudio: Scenario {
    static let key = "ttfa"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "long.mp3"
        let result = ScenarioResult(
            key: key, title: "1. Time to first audio",
            method: "From `Player.play()` (library) or the process spawn (commands) to the first non-silent sample at the null sink's monitor, playing \(file) from nginx on 127.0.0.1. pacat playing raw PCM from disk is the floor of the method (no network, no decoding). One player at a time.",
            metrics: [Metric(key: "ttfa", title: "Time to first audio", unit: "ms", lowerIsBetter: true)])
        let sink = try context.sinks(1)[0]
        for round in 0..<context.rounds {
            for subject in context.subjects {
                let seconds: Double?
                if subject == .pacatFloor {
                    seconds = context.spawnToSound(
                        ["pacat", "--raw", "--format=s16le", "--rate=44100", "--channels=2",
                         context.mediaDirectory + "/floor.raw"],
                        subject: subject, on: sink)
                } else {
                    guard let measured = measure(subject, file: file, on: sink, context: context) else { continue }
                    seconds = measured
                }
                result.record(subject, "ttfa", round: round, seconds.map { $0 * 1000 })
            }
        }
        return [result]
    }

    /// One trial: `subject` plays `file` (a path under the media directory) from nginx on
    /// `sink`, timed in seconds from the ask to the first sound. The outer nil: the subject
    /// plays no URL (pacat), so there is no trial; the inner nil: no sound came.
    static func measure(_ subject: Subject, file: String, on sink: BenchSink, context: BenchContext) -> Double?? {
        let url = context.httpURL(file, tag: context.nextTrialTag())
        if subject == .library { return .some(context.libraryToSound(url, on: sink)) }
        guard let command = subject.command(url: url, streamplay: context.streamplay) else { return nil }
        return .some(context.spawnToSound(command, subject: subject, on: sink))
    }
}
