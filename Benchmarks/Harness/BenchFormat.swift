/// A format the format scenario measures, with the media scripts/make-bench-media.sh made of it
/// (the same signals as long.mp3 and seek.mp3).
struct BenchFormat: Sendable {
    /// Part of the scenario's key (`formats-KEY`) and of its results.
    let key: String
    let title: String
    /// The file (or HLS media playlist) of the signal from its start, and the one silent up to
    /// its midpoint, as paths under the media directory (and nginx's root).
    let long: String
    let seek: String
    /// Whether CPU, memory and decode CPU are measured too. The M4A with its index at the end
    /// carries the same audio as the one with it at the front: only where the index sits
    /// differs, which shows in first audio and seek alone.
    let measuresCPU: Bool

    static let all: [BenchFormat] = [
        BenchFormat(key: "aac-hls", title: "AAC in fragmented-MP4 HLS", long: "hls-long/index.m3u8",
                    seek: "hls-seek/index.m3u8", measuresCPU: true),
        BenchFormat(key: "m4a", title: "AAC in M4A, index at the front", long: "long.m4a", seek: "seek.m4a",
                    measuresCPU: true),
        BenchFormat(key: "m4a-tail", title: "AAC in M4A, index at the end", long: "long-tail.m4a",
                    seek: "seek-tail.m4a", measuresCPU: false),
        BenchFormat(key: "flac", title: "FLAC", long: "long.flac", seek: "seek.flac", measuresCPU: true),
        BenchFormat(key: "opus", title: "Opus in Ogg", long: "long.opus", seek: "seek.opus", measuresCPU: true),
    ]

    /// Whether the file is played over HTTP even where a path would do: HLS, which the
    /// library and the command play from a URL only.
    var isHLS: Bool { long.hasSuffix(".m3u8") }
}
