import Foundation
import StreamPlay

/// 6b. Memory over a long stream: the library decodes hours of audio (one HTTP body, the
/// track repeated) to the null sink in a child process of its own, which samples its resident
/// memory as it goes.
enum LongStreamMemory: Scenario {
    static let key = "longmemory"

    static func run(_ context: BenchContext) throws -> [ScenarioResult] {
        let file = "long.mp3"
        let repeats = context.smoke ? 3 : 12
        let seconds = try context.manifest.file(file).seconds * Double(repeats)
        let result = ScenarioResult(
            key: key, title: "6b. Memory over a long stream (library)",
            method: "The library decodes \(String(format: "%.1f", seconds / 3600)) h of audio (\(file) \(repeats) times over, one HTTP body from the fault server) to the null sink as fast as it can, in a process of its own that reads its resident memory (VmRSS) as it goes. Growth is from 10% of the stream to its end. Decode speed is audio seconds per wall second.",
            metrics: [
                Metric(key: "early", title: "RSS at 10%", unit: "MiB", lowerIsBetter: nil),
                Metric(key: "end", title: "RSS at end", unit: "MiB", lowerIsBetter: nil),
                Metric(key: "growth", title: "Growth", unit: "MiB", lowerIsBetter: nil),
                Metric(key: "speed", title: "Decode speed", unit: "x", lowerIsBetter: nil),
            ])
        let url = context.faultsURL("repeat/\(repeats)/\(file)", tag: context.nextTrialTag())
        guard let finished = ChildProcess.runToEnd([CommandLine.arguments[0], "memory-growth", "--url", url,
                                                 "--seconds", String(seconds)], timeout: max(600, seconds / 5)) else {
            throw HarnessError("the long-stream decode did not start or did not finish")
        }
        let lines = finished.lines
        let samples = lines.compactMap { line -> (Double, Double)? in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let position = Double(fields[0]), let kib = Double(fields[1]) else { return nil }
            return (position, kib / 1024)
        }
        guard finished.exit.status == 0, let last = samples.last,
              let early = samples.first(where: { $0.0 >= seconds / 10 }) else {
            throw HarnessError("the long-stream decode failed: \(lines.suffix(3).joined(separator: " / "))")
        }
        let wall = lines.compactMap { $0.hasPrefix("wall ") ? Double($0.dropFirst(5)) : nil }.first
        result.record(.library, "early", round: 0, early.1)
        result.record(.library, "end", round: 0, last.1)
        result.record(.library, "growth", round: 0, last.1 - early.1)
        result.record(.library, "speed", round: 0, wall.map { last.0 / $0 })
        result.notes.append("One run (it is long); samples: " + samples.enumerated()
            .filter { $0.offset % max(1, samples.count / 6) == 0 || $0.offset == samples.count - 1 }
            .map { String(format: "%.0f s: %.1f MiB", $0.element.0, $0.element.1) }.joined(separator: ", ") + ".")
        return [result]
    }

    /// The child side: decode `url` to the null sink, print "position rssKiB" every 2% of
    /// `seconds`, then "wall SECONDS".
    static func decode(url: String, seconds: Double) -> Int32 {
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let start = MonotonicClock.now()
        player.play(.remote(url))
        var next = 0.0
        while true {
            let state = player.state
            let position = player.position ?? 0
            if position >= next, let kib = ProcFile.residentKiB() {
                print(String(format: "%.1f %d", position, kib))
                next = position + seconds / 50
            }
            if state.isFinal && MonotonicClock.now() - start > 0.5 { break }
            MonotonicClock.sleep(0.02)
        }
        let wall = MonotonicClock.now() - start
        if case .failed(let error) = player.state {
            print("failed \(error)")
            return 1
        }
        if let kib = ProcFile.residentKiB() { print(String(format: "%.1f %d", seconds, kib)) }
        print(String(format: "wall %.3f", wall))
        return 0
    }
}
