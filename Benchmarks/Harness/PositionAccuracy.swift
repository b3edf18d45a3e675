import Foundation
import StreamPlay

/// 5. Position accuracy: `Player.position` against what the monitor shows is being heard at
/// that moment, over a play with a pause and seeks, with the method's own offset taken off.
///
/// The test signal makes every position unique and the monitor passes our PCM unchanged, so
/// the heard position is found by matching the recorded samples at the moment of the query
/// against the reference decode, to the sample. The monitor's clock is not the device's,
/// though: Benchmarks/Peers/pa-position-probe, whose position is libpulse's own estimate of
/// what the server played (`pa_stream_get_time`), is measured the same way each round, and its
/// median error is the offset of the method as that estimate sees it.
enum PositionAccuracy: Scenario {
    static let key = "position"
    private static let window = 64
    /// How long the probe plays in each round: about 80 readings.
    private static let probeSeconds = 8.0
    /// The probe's readings from its stream's first 0.3 s are left out, as the library's are
    /// (its first is taken 0.3 s after it starts playing).
    private static let probeSettling = 0.3
    /// Issue 16's targets for the corrected error, in ms.
    private static let medianLimit = 10.0
    private static let worstLimit = 20.0

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        [try measure(context, on: try context.sinks(1)[0], key: key, title: "5. Position accuracy (library)",
                     server: "PulseAudio", targetPrefix: "Position")]
    }

    /// The scenario on `sink` (of a server called `server` in the report): a result under `key`
    /// and `title`, its targets' names starting with `targetPrefix`.
    static func measure(_ context: BenchContext, on sink: BenchSink, key: String, title: String, server: String,
                        targetPrefix: String) throws -> ScenarioResult {
        let file = "long.mp3"
        let length = try context.manifest.file(file).seconds
        let referencePath = context.mediaDirectory + "/\(file).raw"
        let reference = try loadReference(referencePath)
        let result = ScenarioResult(
            key: key, title: title,
            method: "On \(server). The library plays \(file) on a recorded sink; `position` is read every 50–150 ms through stretches of play, after a 1 s pause and after two seeks (to \(Int(length / 2)) s and back to \(Int(length / 10)) s). Each reading is compared with the position heard at that instant: the recorded samples there, found in the reference decode (mpg123 -s) by exact match. The error is reported position minus heard position. The method floor: before the library in each round, Benchmarks/Peers/pa-position-probe plays that reference decode itself as raw PCM on the same sink through libpulse, its stream made like the library's (interpolated timing, 200 ms target latency), for \(Int(probeSeconds)) s straight, and its `pa_stream_get_time` is read every 50–150 ms and matched the same way (from \(probeSettling) s on). Its position is libpulse's own interpolated estimate of what the server played, and what it plays is exactly what it was given, so its error is the method's own offset (the monitor's sample clock, the sink's mixing ahead) as that estimate sees it; the library's position is read off the same clock, so the corrected figures say how far the library is from libpulse's account, and the raw ones how far from the monitor. \"Corrected\": each of the library's errors less the probe's median error of the same round. Targets (issue 16): corrected median |error| within \(Int(medianLimit)) ms and worst within \(Int(worstLimit)) ms; the ratio is each round's figure over that bound, met when the median over rounds is at most 1 (the range shows the worst round).",
            metrics: [
                Metric(key: "median", title: "Median |error|", unit: "ms", lowerIsBetter: nil),
                Metric(key: "worst", title: "Worst |error|", unit: "ms", lowerIsBetter: nil),
                Metric(key: "bias", title: "Median error", unit: "ms", lowerIsBetter: nil),
                Metric(key: "matched", title: "Readings matched", unit: "count", lowerIsBetter: nil),
                Metric(key: "correctedMedian", title: "Corrected median |error|", unit: "ms", lowerIsBetter: nil),
                Metric(key: "correctedWorst", title: "Corrected worst |error|", unit: "ms", lowerIsBetter: nil),
            ],
            targets: [
                Target("\(targetPrefix), corrected median |error|", metric: "correctedMedian", subject: .library,
                       atMost: medianLimit, unit: "ms"),
                Target("\(targetPrefix), corrected worst |error|", metric: "correctedWorst", subject: .library,
                       atMost: worstLimit, unit: "ms"),
            ])
        if !context.hasPositionProbe {
            result.notes.append("No method floor: \(Subject.positionProbeProgram) (which scripts/bench.sh builds) is not on PATH, or not among the chosen players; so no corrected figures.")
        }
        for round in 0..<context.rounds {
            // The offset of the method in this round, from the probe's errors.
            var methodOffset: Double?
            if context.hasPositionProbe {
                context.settle(sink)
                let run = probeReadings(referencePath, sink: sink)
                if let failure = run.failure { result.notes.append("Round \(round + 1): \(failure)") }
                let floorErrors = Self.errors(of: run.readings, sink: sink, reference: reference)
                record(floorErrors, of: run.readings.count, as: .positionProbe, round: round, in: result)
                methodOffset = Summary(floorErrors)?.median
            }
            context.settle(sink)
            let readings = try playWithReadings(context.httpURL(file, tag: context.nextTrialTag()), sink: sink, length: length)
            let matched = Self.matchedErrors(of: readings, sink: sink, reference: reference)
            let libraryErrors = matched.map(\.error)
            record(libraryErrors, of: readings.count, as: .library, round: round, in: result)
            if context.hasPositionProbe {
                let corrected = methodOffset.map { offset in libraryErrors.map { abs($0 - offset) } } ?? []
                result.record(.library, "correctedMedian", round: round, Summary(corrected)?.median)
                result.record(.library, "correctedWorst", round: round, corrected.max())
            }
            // Where the worst reading of the round came from, against the method's offset.
            let offset = methodOffset ?? 0
            if let worst = matched.max(by: { abs($0.error - offset) < abs($1.error - offset) }) {
                let error = MarkdownReport.format(worst.error - offset, "ms")
                let since = MarkdownReport.format(worst.reading.sinceEvent * 1000, "ms")
                result.notes.append("Round \(round + 1), library: the worst reading, \(error)\(methodOffset == nil ? "" : " corrected"), came \(since) after \(worst.reading.stretch).")
            }
        }
        return result
    }

    /// Each reading's error in ms (reported minus heard), for those whose heard position was found.
    private static func errors(of readings: [Reading], sink: BenchSink, reference: [Int16]) -> [Double] {
        matchedErrors(of: readings, sink: sink, reference: reference).map(\.error)
    }

    /// The readings whose heard position was found, each with its error in ms.
    private static func matchedErrors(of readings: [Reading], sink: BenchSink,
                                      reference: [Int16]) -> [(reading: Reading, error: Double)] {
        readings.compactMap { reading in
            heardPosition(at: reading.time, near: reading.position, sink: sink, reference: reference)
                .map { (reading, (reading.position - $0) * 1000) }
        }
    }

    /// The raw figures of one subject's round; a note when fewer than half the readings matched.
    private static func record(_ errors: [Double], of readingCount: Int, as subject: Subject, round: Int,
                               in result: ScenarioResult) {
        let absolute = errors.map(abs)
        result.record(subject, "median", round: round, Summary(absolute)?.median)
        result.record(subject, "worst", round: round, absolute.max())
        result.record(subject, "bias", round: round, Summary(errors)?.median)
        result.record(subject, "matched", round: round, Double(errors.count))
        if errors.count < readingCount / 2 || readingCount == 0 {
            result.notes.append("Round \(round + 1), \(subject.rawValue): only \(errors.count) of \(readingCount) readings matched the reference.")
        }
    }

    /// Runs the probe on `sink` with `path` (the reference decode) to its end, and takes its
    /// readings; `failure` says why it did not exit cleanly, with what it printed that was not
    /// a reading.
    private static func probeReadings(_ path: String, sink: BenchSink) -> (readings: [Reading], failure: String?) {
        let command = [Subject.positionProbeProgram, path, sink.name, String(probeSeconds)]
        let environment = sink.server.map { ["PULSE_SERVER": $0] } ?? [:]
        guard let finished = ChildProcess.runToEnd(command, environment: environment, timeout: probeSeconds + 20) else {
            return ([], "\(Subject.positionProbeProgram) did not start or did not end in time.")
        }
        var readings: [Reading] = []
        var messages: [String] = []
        for line in finished.lines {
            let fields = line.split(separator: " ")
            if fields.count == 2, let time = Double(fields[0]), let position = Double(fields[1]) {
                if position >= probeSettling { readings.append(Reading(time: time, position: position)) }
            } else {
                messages.append(String(line))
            }
        }
        sink.recorder.waitUntilRecorded(MonotonicClock.now())
        guard finished.exit.status != 0 else { return (readings, nil) }
        let said = messages.isEmpty ? "" : ": " + messages.joined(separator: " ")
        return (readings, "\(Subject.positionProbeProgram) failed (wait status \(finished.exit.status))\(said)")
    }

    private struct Reading {
        let time: Double
        let position: Double
        /// The stretch of the play it was read in (after the pause, after a seek), and how
        /// long after that stretch's event: where the worst readings come from.
        var stretch = ""
        var sinceEvent = 0.0
    }

    private static func playWithReadings(_ url: String, sink: BenchSink, length: Double) throws -> [Reading] {
        let player = sink.libraryPlayer
        defer { player.stop() }
        player.play(.remote(url))
        try waitFor(player, .playing)
        var readings: [Reading] = []
        func read(for seconds: Double, after stretch: String) {
            let event = MonotonicClock.now()
            MonotonicClock.sleep(0.3)
            let end = MonotonicClock.now() + seconds
            while MonotonicClock.now() < end {
                let before = MonotonicClock.now()
                guard let position = player.position else { continue }
                let after = MonotonicClock.now()
                readings.append(Reading(time: (before + after) / 2, position: position, stretch: stretch,
                                        sinceEvent: (before + after) / 2 - event))
                MonotonicClock.sleep(Double.random(in: 0.05...0.15))
            }
        }
        read(for: 3, after: "the start")
        player.pause()
        MonotonicClock.sleep(1)
        player.resume()
        read(for: 3, after: "the resume")
        player.seek(to: length / 2)
        try waitFor(player, .playing)
        read(for: 3, after: "the first seek")
        player.seek(to: length / 10)
        try waitFor(player, .playing)
        read(for: 3, after: "the seek back")
        sink.recorder.waitUntilRecorded(MonotonicClock.now())
        return readings
    }

    private static func waitFor(_ player: Player, _ state: PlayerState) throws {
        let deadline = MonotonicClock.now() + 10
        while player.state != state {
            guard MonotonicClock.now() < deadline else { throw HarnessError("the player did not reach \(state)") }
            MonotonicClock.sleep(0.005)
        }
    }

    /// Where in the track the sink was at `time`: the recorded window found in the reference
    /// within a second of the reported position.
    private static func heardPosition(at time: Double, near position: Double, sink: BenchSink,
                                      reference: [Int16]) -> Double? {
        let recorder = sink.recorder
        let frame = recorder.frame(at: time)
        let (first, recorded) = recorder.samples(frames: frame..<(frame + window))
        guard first == frame, recorded.count == 2 * window,
              recorded.contains(where: { abs(Int($0)) > 64 }) else { return nil }
        let rate = Double(recorder.rate)
        let guess = Int(position * rate)
        let low = max(0, guess - Int(rate)), high = min(reference.count / 2 - window, guess + Int(rate))
        guard low < high else { return nil }
        for candidate in low..<high where matches(recorded, reference, at: candidate) {
            return Double(candidate) / rate
        }
        return nil
    }

    private static func matches(_ recorded: [Int16], _ reference: [Int16], at frame: Int) -> Bool {
        let base = 2 * frame
        for index in 0..<recorded.count where abs(Int(recorded[index]) - Int(reference[base + index])) > 1 {
            return false
        }
        return true
    }

    private static func loadReference(_ path: String) throws -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarnessError("no reference decode \(path)")
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

/// 5b. Position accuracy on PipeWire: scenario 5 on a null sink of PipeWire's PulseAudio server
/// (pipewire-pulse, its graph at 44.1 kHz like the PulseAudio daemon's sink, so the monitor
/// still passes the PCM unchanged), with the same method floor and targets.
enum PipeWirePositionAccuracy: Scenario {
    static let key = "position-pipewire"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let title = "5b. Position accuracy on PipeWire (library)"
        guard let sink = try context.pipewireSink() else {
            throw HarnessError("\(title): no PipeWire server (STREAMPLAY_TEST_PIPEWIRE_SERVER is not set: run the harness through scripts/bench.sh)")
        }
        return [try PositionAccuracy.measure(context, on: sink, key: key, title: title, server: "PipeWire (pipewire-pulse)",
                                             targetPrefix: "Position on PipeWire")]
    }
}
