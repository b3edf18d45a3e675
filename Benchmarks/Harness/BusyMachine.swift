import Foundation
import StreamPlay

/// 3b. A link at 1.5× the bitrate while every core is kept busy (issue 16, "no stall under
/// load"): the fault server paces the track in small chunks, which leaves a player that starts
/// on little audio the least slack, and one busy loop per core competes with the players and
/// the harness for the CPU at the same priority. The sound server runs at a desktop's priority
/// (`scripts/test-servers.sh --bench`), so that the load falls on the players measured. The
/// pacat floor plays beside them from disk with the library's stream buffer: what the machine
/// does to a player with no link and no decoder.
enum BusyMachine: Scenario {
    static let key = "busy"
    /// The link's speed, as a multiple of the bitrate.
    static let factor = 1.5
    /// Issue 16's bound on any silence in the track on such a link, in milliseconds.
    static let silenceLimit = 100.0
    /// One core's load: spins for as long as its parent, the harness, lives.
    static let busyLoop = "while kill -0 $PPID 2>/dev/null; do :; done"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "short.mp3"
        let track = try context.manifest.file(file)
        let rate = Int(Double(context.manifest.bitrate) / 8 * factor)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let subjects = context.subjects
        // The floor: the track's reference decode from disk, with the stream buffer the library
        // asks for by default. It has no link and no decoder, so a silence it shows too comes
        // from the machine, the sound server or the recording, not from a player's input.
        let bufferMilliseconds = Int((PlayerConfiguration().targetLatency * 1000).rounded())
        let floor = ["pacat", "--raw", "--format=s16le", "--rate=\(context.manifest.rate)", "--channels=2",
                     "--latency-msec=\(bufferMilliseconds)", context.mediaDirectory + "/\(file).raw"]
        let limit = MarkdownReport.format(silenceLimit, "ms")
        let result = ScenarioResult(
            key: key, title: "3b. Link at \(factor)× the bitrate with every core busy",
            method: "\(file) (\(track.seconds) s) paced at \(rate) B/s by the fault server in chunks of up to 4 KiB, played to the end by all players at once, each on its own sink, while \(cores) busy loops (one per core, `sh -c '\(busyLoop)'`, at the players' priority; the sound server at nice -11, as a desktop runs it) run from before the first player starts until the last one ends. \"Longest silence\" is the longest silent stretch between the first and the last sound; \"Over \(limit)\" counts the silences longer than that (issue 16's bound on such a link; its targets, like every target, are judged on the median round, and this column shows any round over it); \"heard\" is the audio heard in total. The pacat floor plays the track's reference decode (`\(file).raw`) from disk with a \(bufferMilliseconds) ms stream buffer (`--latency-msec`, the library's default `targetLatency`): no link and no decoder, so a silence it shows too is the machine's, the sound server's or the recording's. \"Underflows\" is what the library's PulseAudio stream reported (`PlaybackStatistics.underflowCount`): the server ran out of its audio; a rebuffer is the input running dry.",
            metrics: [
                Metric(key: "ttfa", title: "First audio", unit: "ms", lowerIsBetter: true),
                Metric(key: "longest", title: "Longest silence", unit: "ms", lowerIsBetter: true),
                Metric(key: "over", title: "Over \(limit)", unit: "count", lowerIsBetter: nil),
                Metric(key: "heard", title: "Audio heard", unit: "s", lowerIsBetter: nil),
                Metric(key: "reported", title: "Rebuffers the Player counted", unit: "count", lowerIsBetter: nil),
                Metric(key: "underflows", title: "Underflows the sink counted", unit: "count", lowerIsBetter: nil),
            ],
            targets: [
                Target("Longest silence, every core busy", metric: "longest", subject: .library,
                       atMost: silenceLimit, unit: "ms"),
                Target("Longest silence, every core busy", metric: "longest", subject: .streamplay,
                       atMost: silenceLimit, unit: "ms"),
                Target("First audio, every core busy", metric: "ttfa",
                       subject: .library, bestPeerLimit: 0.5),
            ])
        // The sinks are loaded (their recorders' clocks taken, their players made) before any
        // load starts; otherwise the first round would load them with every core busy.
        _ = try context.sinks(SideBySide.playing(subjects, floor: floor).count)
        for round in 0..<context.rounds {
            let tag = context.nextTrialTag()
            // Each loop ends by itself once the harness is gone (killed outright, it could not
            // stop them): `kill -0` on the parent fails then.
            let load = try (0..<cores).map { _ in try ChildProcess(["sh", "-c", Self.busyLoop]) }
            defer { load.forEach { $0.terminate(grace: 0.5) } }
            // Let the loops take their share before the players start.
            MonotonicClock.sleep(0.3)
            let run = try SideBySide(subjects, context: context, floor: floor) { subject in
                context.faultsURL("throttle/\(rate)/\(file)", tag: "\(tag)-\(Subject.allCases.firstIndex(of: subject) ?? 0)")
            }
            run.waitForAll(timeout: track.seconds / factor + 40)
            load.forEach { $0.terminate(grace: 0.5) }
            for player in run.runs {
                if let statistics = player.statistics {
                    result.record(player.subject, "reported", round: round, Double(statistics.rebufferCount))
                }
                if let underflows = player.underflows {
                    result.record(player.subject, "underflows", round: round, Double(underflows))
                }
                let trace = player.trace()
                result.record(player.subject, "ttfa", round: round, trace.map { $0.firstSound * 1000 })
                result.record(player.subject, "longest", round: round, trace.map { ($0.gaps.max() ?? 0) * 1000 })
                result.record(player.subject, "over", round: round,
                              trace.map { Double($0.gaps.filter { $0 * 1000 > silenceLimit }.count) })
                result.record(player.subject, "heard", round: round, trace?.heard)
                if let note = trace?.gapNote(round: round, subject: player.subject) { result.notes.append(note) }
            }
        }
        return [result]
    }
}
