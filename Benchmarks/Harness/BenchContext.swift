import Foundation
import StreamPlay

/// What every scenario needs: where the media and servers are, which players are here, the
/// sinks, and the trial helpers shared by the scenarios.
final class BenchContext {
    let mediaDirectory: String
    let manifest: MediaManifest
    let httpBase: String
    let faultsBase: String
    let accessLog: String
    let streamplay: String
    let rounds: Int
    let smoke: Bool
    /// The players here that play to a sink (less the position scenario's own probe).
    let subjects: [Subject]
    /// Whether `ffmpeg -f null` is here (and chosen): the reference of the decode CPU figures.
    let hasFFmpegDecode: Bool
    /// Whether pa-position-probe is here (and chosen): the position scenario's method floor.
    let hasPositionProbe: Bool
    /// PipeWire's PulseAudio server (pipewire-pulse), when scripts/bench.sh started one.
    let pipewireServer: String?
    private var pipewireSinkLoaded: BenchSink?
    private var sinks: [BenchSink] = []
    /// Per sink name, the largest clock spread of the sinks of that name released so far.
    private(set) var clockSpreads: [String: Double] = [:]
    private var trialCounter = 0
    private let runID = String(UInt32.random(in: 0...UInt32.max), radix: 16)

    init(mediaDirectory: String, httpBase: String, faultsBase: String, accessLog: String, streamplay: String,
         rounds: Int, smoke: Bool, only: [Subject]?, pipewireServer: String? = nil) throws {
        self.pipewireServer = pipewireServer
        self.mediaDirectory = mediaDirectory
        self.manifest = try MediaManifest(directory: mediaDirectory)
        self.httpBase = httpBase
        self.faultsBase = faultsBase
        self.accessLog = accessLog
        self.streamplay = streamplay
        self.rounds = rounds
        self.smoke = smoke
        let available = (only ?? Subject.allCases).filter { $0.isAvailable(streamplay: streamplay) }
        subjects = available.filter { $0.plays && $0 != .positionProbe }
        hasFFmpegDecode = available.contains(.ffmpegDecode)
        hasPositionProbe = available.contains(.positionProbe)
    }

    var missing: [Subject] { Subject.allCases.filter { !$0.isAvailable(streamplay: streamplay) } }

    /// The first `count` sinks, loaded on first use.
    func sinks(_ count: Int) throws -> [BenchSink] {
        while sinks.count < count {
            sinks.append(try BenchSink(name: "streamplay_bench_\(sinks.count)"))
        }
        return Array(sinks.prefix(count))
    }

    /// A sink on PipeWire's server, loaded on first use; nil without one.
    func pipewireSink() throws -> BenchSink? {
        guard let pipewireServer else { return nil }
        if let pipewireSinkLoaded { return pipewireSinkLoaded }
        let sink = try BenchSink(name: "streamplay_bench_pipewire", server: pipewireServer)
        pipewireSinkLoaded = sink
        return sink
    }

    /// Unloads every sink, PipeWire's included: the harness calls it after each scenario. A
    /// recorded sink's recorder and stream of zeros keep the machine busy even when nothing
    /// plays, and would load it through the scenarios after it (the cost is in
    /// Benchmarks/README.md, "Keep-alive").
    func releaseSinks() {
        sinks.forEach(close)
        sinks.removeAll()
        if let pipewireSinkLoaded { close(pipewireSinkLoaded) }
        pipewireSinkLoaded = nil
    }

    /// Closes `sink`, keeping its ``MonitorRecorder/clockSpread`` (the largest per sink name)
    /// for the report's note.
    private func close(_ sink: BenchSink) {
        clockSpreads[sink.name] = max(clockSpreads[sink.name] ?? 0, sink.recorder.clockSpread)
        sink.close()
    }

    /// A query that makes each trial's requests findable in the access log.
    func nextTrialTag() -> String {
        trialCounter += 1
        return "trial=\(runID)-\(trialCounter)"
    }

    func httpURL(_ path: String, tag: String) -> String { "\(httpBase)/\(path)?\(tag)" }
    func faultsURL(_ path: String, tag: String) -> String { "\(faultsBase)/\(path)?\(tag)" }

    /// Seconds from `ask` to the first sound on `sink`; the child (if any) is stopped after.
    func timeToSound(on sink: BenchSink, ask: Double, timeout: Double = 15) -> Double? {
        let start = sink.recorder.frame(at: ask)
        guard let frame = sink.recorder.waitForSound(from: start, timeout: timeout) else { return nil }
        return sink.recorder.time(ofFrame: frame) - ask
    }

    /// Runs `command` on `sink` until it makes a sound (or `timeout` seconds have passed);
    /// returns seconds from spawn to sound.
    func spawnToSound(_ command: [String], subject: Subject, on sink: BenchSink, timeout: Double = 15) -> Double? {
        settle(sink)
        let ask = MonotonicClock.now()
        guard let child = try? ChildProcess(command, environment: subject.environment(sink: sink.name)) else {
            return nil
        }
        let seconds = timeToSound(on: sink, ask: ask, timeout: timeout)
        child.terminate()
        return seconds
    }

    /// Plays `url` with the library on `sink` until it makes a sound.
    func libraryToSound(_ url: String, on sink: BenchSink) -> Double? {
        settle(sink)
        let player = sink.libraryPlayer
        let ask = MonotonicClock.now()
        player.play(.remote(url))
        let seconds = timeToSound(on: sink, ask: ask)
        player.stop()
        return seconds
    }

    /// Waits until `sink` is quiet again and forgets what it recorded so far.
    func settle(_ sink: BenchSink) {
        _ = sink.recorder.waitForSilence()
        sink.recorder.discard(before: sink.recorder.framesReceived - 44100)
    }

    /// Whether a request of this trial asked for a Range that does not start at 0 (nginx logs a
    /// request when it ends, so this waits a little for the line).
    func usedRange(tag: String) -> Bool {
        let deadline = MonotonicClock.now() + 2
        repeat {
            let lines = ((try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? "")
                .split(separator: "\n").filter { $0.contains(tag) }
            if lines.contains(where: { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.count > 2, fields[2].hasPrefix("bytes=") else { return false }
                let start = fields[2].dropFirst("bytes=".count).prefix { $0.isNumber }
                return (Int(start) ?? 0) > 0
            }) { return true }
            MonotonicClock.sleep(0.1)
        } while MonotonicClock.now() < deadline
        return false
    }
}

/// bench-media.json, written by scripts/make-bench-media.sh.
struct MediaManifest {
    struct File: Decodable {
        let seconds: Double
        let bytes: Int
        let seekTo: Double?
    }

    let rate: Int
    let bitrate: Int
    let files: [String: File]

    init(directory: String) throws {
        struct Raw: Decodable {
            let rate: Int
            let bitrate: Int
            let files: [String: File]
        }
        let path = directory + "/bench-media.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarnessError("no \(path): make the media with scripts/make-bench-media.sh")
        }
        let raw = try JSONDecoder().decode(Raw.self, from: data)
        rate = raw.rate
        bitrate = raw.bitrate
        files = raw.files
    }

    func file(_ name: String) throws -> File {
        guard let file = files[name] else { throw HarnessError("bench-media.json lists no \(name)") }
        return file
    }
}
