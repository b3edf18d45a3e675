// Micro-benchmarks of the library (ordo-one/benchmark): `swift package benchmark`.
// scripts/bench.sh runs them after the comparison harness; the media comes from
// STREAMPLAY_BENCH_MEDIA (made by scripts/make-bench-media.sh).

import Benchmark
import Foundation
@_spi(Benchmarks) import StreamPlay

/// Figures the benchmarks compute themselves (a metric must be listed to be reported).
let ringMiBPerSecond = BenchmarkMetric.custom("MiB/s", polarity: .prefersLarger, useScalingFactor: false)
let timesRealTime = BenchmarkMetric.custom("x real time", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 50
    )

    Benchmark(
        "ByteRing: 64 MiB through the ring, producer and consumer threads",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, ringMiBPerSecond], maxIterations: 20)
    ) { benchmark in
        let megabytesPerSecond = RingThroughput.run(totalBytes: 64 << 20, chunk: 16 << 10, capacity: 512 << 10)
        benchmark.measurement(ringMiBPerSecond, Int(megabytesPerSecond))
    }

    Benchmark(
        "Decode to the null sink: long.mp3 from a file, as a multiple of real time",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .peakMemoryResident, timesRealTime], maxIterations: 5)
    ) { benchmark in
        let media = try BenchMedia.locate()
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let start = ContinuousClock.now
        player.play(.file(media.path("long.mp3")))
        let final = await player.waitUntilFinished()
        let elapsed = (ContinuousClock.now - start).seconds
        guard case .ended = final else { throw BenchFailure("decode ended in \(final)") }
        benchmark.measurement(timesRealTime, Int(media.longSeconds / elapsed))
    }

    Benchmark(
        "Player.position, read while a track is loaded",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal],
                             scalingFactor: .kilo, maxIterations: 1000)
    ) { benchmark in
        let media = try BenchMedia.locate()
        let player = Player(configuration: PlayerConfiguration(output: .null))
        defer { player.stop() }
        player.play(.file(media.path("long.mp3")))
        try PlayerWaiting.spin(timeout: 10) { player.state == .playing }
        player.pause()
        try PlayerWaiting.spin(timeout: 10) { player.state == .paused }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(player.position)
        }
        benchmark.stopMeasurement()
    }

    Benchmark(
        "Allocations per 60 decoded seconds in steady state (target 0)",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], maxIterations: 5)
    ) { benchmark in
        try SteadyStateAllocations.measure(benchmark, file: "long.mp3")
    }

    // FFmpeg allocates for every packet whoever calls it (FFmpegDecodeFloor says why): on that
    // path the target is that the engine adds nothing, its figure equal to FFmpeg's own loop's.
    Benchmark(
        "Allocations per 60 decoded seconds in steady state, AAC in M4A (FFmpeg; target: FFmpeg's own loop's figure)",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], units: [.mallocCountTotal: .count],
                             maxIterations: 5)
    ) { benchmark in
        try SteadyStateAllocations.measure(benchmark, file: "long.m4a")
    }

    Benchmark(
        "Allocations per 60 decoded seconds, AAC in M4A: FFmpeg's own read-and-decode loop, no engine",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], units: [.mallocCountTotal: .count],
                             maxIterations: 5)
    ) { benchmark in
        let media = try BenchMedia.locate()
        try FFmpegDecodeFloor.measure(benchmark, path: media.path("long.m4a"), longSeconds: media.longSeconds)
    }
}
