import Foundation

/// A player the harness measures: StreamPlay (the library in-process, or the `streamplay`
/// command) or a peer command, each started the way its users would start it.
enum Subject: String, CaseIterable, Codable, Sendable {
    case library = "StreamPlay (library)"
    case streamplay = "streamplay"
    case mpg123 = "mpg123"
    case mpv = "mpv"
    case ffplay = "ffplay"
    case gstreamer = "gst-launch playbin"
    /// pacat playing raw PCM from disk: no network, no decoding. The floor of the method.
    case pacatFloor = "pacat (floor)"
    /// Benchmarks/Peers/pa-position-probe: raw PCM played through libpulse, its position read
    /// with `pa_stream_get_time`. The floor of the position scenario, and the only one to run
    /// it (never one of ``BenchContext/subjects``).
    case positionProbe = "pa_stream_get_time (method floor)"
    /// `ffmpeg -f null`: decoding alone, no playing. The reference of the decode CPU figures
    /// (the format scenario), never a peer and never played to a sink.
    case ffmpegDecode = "ffmpeg -f null"

    /// The players people would use instead: ratios are taken against the best of these.
    var isPeer: Bool {
        switch self {
        case .mpg123, .mpv, .ffplay, .gstreamer: true
        case .library, .streamplay, .pacatFloor, .positionProbe, .ffmpegDecode: false
        }
    }

    /// The program that must be on PATH (nil: the library, or the streamplay path given).
    var program: String? {
        switch self {
        case .library, .streamplay: nil
        case .mpg123: "mpg123"
        case .mpv: "mpv"
        case .ffplay: "ffplay"
        case .gstreamer: "gst-launch-1.0"
        case .pacatFloor: "pacat"
        case .positionProbe: Self.positionProbeProgram
        case .ffmpegDecode: "ffmpeg"
        }
    }

    /// Whether it plays to a sink (everything but the decode-only `ffmpeg -f null`).
    var plays: Bool { self != .ffmpegDecode }

    /// The command that plays `url` from `start` seconds on, or nil when the program cannot
    /// start at an offset.
    func command(url: String, start: Double? = nil, streamplay: String) -> [String]? {
        let offset = start ?? 0
        switch self {
        case .library, .pacatFloor, .positionProbe, .ffmpegDecode:
            return nil
        case .streamplay:
            return [streamplay, "--quiet"] + (offset > 0 ? ["--start", String(offset)] : []) + [url]
        case .mpg123:
            // -k skips whole MPEG frames (1152 samples each at 44.1 kHz).
            let frames = Int((offset * 44100 / 1152).rounded())
            return ["mpg123", "-q", "-o", "pulse"] + (offset > 0 ? ["-k", String(frames)] : []) + [url]
        case .mpv:
            return ["mpv", "--no-config", "--no-video", "--ao=pulse", "--really-quiet"]
                + (offset > 0 ? ["--start=\(offset)"] : []) + [url]
        case .ffplay:
            return ["ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"]
                + (offset > 0 ? ["-ss", String(offset)] : []) + ["-i", url]
        case .gstreamer:
            // gst-launch has no start offset. Benchmarks/Peers/gst-play-from does what a GStreamer
            // application does instead (preroll, one flushing accurate seek, play); scripts/bench.sh
            // builds it and puts it on PATH. Without it, seeks are not measured for GStreamer.
            guard offset == 0 else {
                return Self.onPath(Self.gstreamerFromOffset) ? [Self.gstreamerFromOffset, url, String(offset)] : nil
            }
            return ["gst-launch-1.0", "-q", "playbin", "uri=\(url)", "audio-sink=pulsesink",
                    "video-sink=fakesink"]
        }
    }

    /// GStreamer's command for a start offset (Benchmarks/Peers/gst-play-from.c): playbin into
    /// pulsesink, as gst-launch's, from the offset on.
    static let gstreamerFromOffset = "gst-play-from"

    /// The position scenario's method floor (Benchmarks/Peers/pa-position-probe.c), which
    /// scripts/bench.sh builds and puts on PATH next to gst-play-from.
    static let positionProbeProgram = "pa-position-probe"

    /// What the command needs in its environment to play on `sink`.
    func environment(sink: String) -> [String: String] {
        var environment = ["PULSE_SINK": sink]
        if self == .ffplay { environment["SDL_AUDIODRIVER"] = "pulseaudio" }
        return environment
    }

    /// Whether this subject can run here.
    func isAvailable(streamplay: String) -> Bool {
        switch self {
        case .library: true
        case .streamplay: FileManager.default.isExecutableFile(atPath: streamplay)
        default: program.map(Self.onPath) ?? false
        }
    }

    static func onPath(_ program: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    /// The version line the program prints, for the report.
    func version() -> String? {
        let arguments: [String]
        switch self {
        case .mpg123: arguments = ["mpg123", "--version"]
        case .mpv: arguments = ["mpv", "--version"]
        case .ffplay: arguments = ["ffplay", "-version"]
        case .gstreamer: arguments = ["gst-launch-1.0", "--version"]
        case .pacatFloor: arguments = ["pacat", "--version"]
        case .ffmpegDecode: arguments = ["ffmpeg", "-version"]
        case .library, .streamplay, .positionProbe: return nil
        }
        return CommandOutput.firstLine(arguments)
    }
}

/// The first line a short-lived command prints.
enum CommandOutput {
    static func firstLine(_ arguments: [String]) -> String? {
        ChildProcess.runToEnd(arguments, timeout: 10)?.lines.first.map(String.init)
    }
}
