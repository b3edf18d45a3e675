import Benchmark
import Foundation
@_spi(Benchmarks) import StreamPlay

/// The malloc calls of the whole process while the library decodes a file to the null sink in
/// steady state: past start-up (stream open, format negotiation, first prebuffer), the decoder
/// loop runs on its own, and only that loop is measured.
enum SteadyStateAllocations {
    /// Decodes `file` (of the bench media, as long as long.mp3) and measures the second third
    /// of it (at most 60 s of audio) between `startMeasurement` and `stopMeasurement`.
    static func measure(_ benchmark: Benchmark, file: String) throws {
        let media = try BenchMedia.locate()
        let player = Player(configuration: PlayerConfiguration(output: .null))
        defer { player.stop() }
        player.play(.file(media.path(file)))
        let window = min(60.0, media.longSeconds / 3)
        try PlayerWaiting.spin(timeout: 30) { (player.position ?? 0) >= window }
        benchmark.startMeasurement()
        try PlayerWaiting.spin(timeout: 30) { (player.position ?? 0) >= 2 * window }
        benchmark.stopMeasurement()
    }
}
