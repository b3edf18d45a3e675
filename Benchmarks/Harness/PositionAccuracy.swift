import Foundation
import StreamPlay

/// 5. Position accuracy: `Player.position` against what the monitor shows is being heard at
/// that moment, over a play with a pause and seeks.
///
/// The test signal makes every position unique and the monitor passes our PCM unchanged, so
/// the heard position is found by matching the recorded samples at the moment of the query
/// against the reference decode, to the sample.
enum PositionAccuracy: Scenario {
    static let key = "position"
    private static let window = 64

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "long.mp3"
        let length = try context.manifest.file(file).seconds
        let reference = try loadReference(context.mediaDirectory + "/\(file).raw")
        let result = ScenarioResult(
            key: key, title: "5. Position accuracy (library)",
            method: "The library plays \(file) on a recorded sink; `position` is read every 50–150 ms through stretches of play, after a 1 s pause and after two seeks (to \(Int(length / 2)) s and back to \(Int(length / 10)) s). Each reading is compared with the position heard at that instant: the recorded samples there, found in the reference decode (mpg123 -s) by exact match. The error is reported position minus heard position.",
            metrics: [
                Metric(key: "median", title: "Median |error|", unit: "ms", lowerIsBetter: nil),
                Metric(key: "worst", title: "Worst |error|", unit: "ms", lowerIsBetter: nil),
                Metric(key: "bias", title: "Median error", unit: "ms", lowerIsBetter: nil),
                Metric(key: "matched", title: "Readings matched", unit: "count", lowerIsBetter: nil),
            ])
        let sink = try context.sinks(1)[0]
        for round in 0..<context.rounds {
            context.settle(sink)
            let readings = try playWithReadings(context.httpURL(file, tag: context.nextTrialTag()), sink: sink, length: length)
            var errors: [Double] = []
            for reading in readings {
                guard let heard = heardPosition(at: reading.time, near: reading.position, sink: sink, reference: reference)
                else { continue }
                errors.append((reading.position - heard) * 1000)
            }
            let absolute = errors.map(abs)
            result.record(.library, "median", round: round, Summary(absolute)?.median)
            result.record(.library, "worst", round: round, absolute.max())
            result.record(.library, "bias", round: round, Summary(errors)?.median)
            result.record(.library, "matched", round: round, Double(errors.count))
            if errors.count < readings.count / 2 {
                result.notes.append("Round \(round + 1): only \(errors.count) of \(readings.count) readings matched the reference.")
            }
        }
        return [result]
    }

    private struct Reading {
        let time: Double
        let position: Double
    }

    private static func playWithReadings(_ url: String, sink: BenchSink, length: Double) throws -> [Reading] {
        let player = sink.libraryPlayer
        defer { player.stop() }
        player.play(.remote(url))
        try waitFor(player, .playing)
        var readings: [Reading] = []
        func read(for seconds: Double) {
            MonotonicClock.sleep(0.3)
            let end = MonotonicClock.now() + seconds
            while MonotonicClock.now() < end {
                let before = MonotonicClock.now()
                guard let position = player.position else { continue }
                let after = MonotonicClock.now()
                readings.append(Reading(time: (before + after) / 2, position: position))
                MonotonicClock.sleep(Double.random(in: 0.05...0.15))
            }
        }
        read(for: 3)
        player.pause()
        MonotonicClock.sleep(1)
        player.resume()
        read(for: 3)
        player.seek(to: length / 2)
        try waitFor(player, .playing)
        read(for: 3)
        player.seek(to: length / 10)
        try waitFor(player, .playing)
        read(for: 3)
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
