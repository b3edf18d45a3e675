import Foundation

/// The media scripts/make-bench-media.sh made, found through STREAMPLAY_BENCH_MEDIA.
struct BenchMedia {
    let directory: String
    /// Length of long.mp3, from the media's manifest.
    let longSeconds: Double

    static func locate() throws -> BenchMedia {
        guard let directory = ProcessInfo.processInfo.environment["STREAMPLAY_BENCH_MEDIA"] else {
            throw BenchFailure("STREAMPLAY_BENCH_MEDIA is not set: run the benchmarks through scripts/bench.sh")
        }
        let manifestPath = directory + "/bench-media.json"
        guard let data = FileManager.default.contents(atPath: manifestPath),
              let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = manifest["files"] as? [String: Any],
              let long = files["long.mp3"] as? [String: Any],
              let seconds = long["seconds"] as? Double
        else {
            throw BenchFailure("no readable bench-media.json in \(directory)")
        }
        return BenchMedia(directory: directory, longSeconds: seconds)
    }

    func path(_ name: String) -> String { directory + "/" + name }
}
