import Foundation

/// Records what a PulseAudio sink plays, from its monitor source, with `parec`.
///
/// An idle null sink is suspended and its monitor delivers nothing, so a stream that starts
/// would lose its first block to the wake-up. A `pacat` of silence keeps the sink running (mixing
/// zeros changes no sample), and ``start()`` waits until the monitor delivers before returning.
final class MonitorRecorder {
    let sink: String
    /// The sound server's address; `nil` for the one `PULSE_SERVER` names.
    let server: String?
    let sampleRate: Int
    let channels: Int
    let path = TestEnvironment.temporaryPath("monitor.raw")
    private var process = Process()
    private var silence = Process()

    /// The recording's latency. On PipeWire the lowest latency any stream asks for sets the
    /// graph's quantum for all of them: 20 ms (882 frames) would bring it down to 512, and on a
    /// slow 2-core machine the graph then dropped or repeated a quantum now and then, more so
    /// after a restart (seen in fresh-clone runs as ±512-frame shifts in the recording). 100 ms
    /// leaves the quantum at its default, 1024. The PulseAudio daemon has no such graph.
    var latencyMilliseconds: Int {
        server != nil && server == ProcessInfo.processInfo.environment["STREAMPLAY_TEST_PIPEWIRE_SERVER"] ? 100 : 20
    }

    init(sink: String, server: String? = nil, sampleRate: Int = 44100, channels: Int = 2) {
        self.sink = sink
        self.server = server
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// A recording a failed test left running is ended: its programs hold the test process's
    /// output, and `swift test` would wait for them for ever.
    deinit {
        for running in [process, silence] where running.isRunning { kill(running.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Starts the silence and the recording, and waits until the monitor delivers. A server
    /// just started (the restart tests) may still drop a client's connection: a `parec` or
    /// `pacat` that exits before the monitor delivered is started again, within 10 s in all.
    func start() async throws {
        let deadline = Date().addingTimeInterval(10)
        while true {
            try launch()
            while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < 4096 {
                guard Date() < deadline else {
                    throw RecorderError(message: "parec produced no audio from \(sink).monitor within 10 s")
                }
                guard process.isRunning, silence.isRunning else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            if process.isRunning && silence.isRunning { return }
            for exited in [process, silence] where exited.isRunning { kill(exited.processIdentifier, SIGKILL) }
            guard Date() < deadline else {
                throw RecorderError(message: "parec or pacat ended without audio from \(sink).monitor")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Starts a `pacat` of silence into the sink and a `parec` of its monitor into an empty file.
    private func launch() throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        silence = Process()
        silence.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let serverArguments = server.map { ["-s", $0] } ?? []
        silence.arguments = ["pacat"] + serverArguments + ["--raw", "--format=s16le", "--rate=\(sampleRate)", "--channels=\(channels)",
                             "-d", sink, "/dev/zero"]
        // Neither holds the test process's output, which `swift test` reads to its end.
        silence.standardOutput = FileHandle.nullDevice
        silence.standardError = FileHandle.nullDevice
        try silence.run()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["parec"] + serverArguments + ["-d", "\(sink).monitor", "--raw", "--format=s16le",
                             "--rate=\(sampleRate)", "--channels=\(channels)", "--latency-msec=\(latencyMilliseconds)"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Stops recording and returns the interleaved samples.
    func stop() async throws -> [Int16] {
        // SIGINT lets parec write out what it holds; SIGKILL only if it does not exit.
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        kill(silence.processIdentifier, SIGKILL)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return PCM.samples(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    struct RecorderError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// A null sink of a given format loaded into a test sound server for one test, so that audio
/// at that format passes the server unchanged.
final class ExtraNullSink {
    let name: String
    private let module: String
    private let serverArguments: [String]

    /// - Parameter server: the sound server's address; `nil` for the one `PULSE_SERVER` names.
    init(sampleRate: Int, channels: Int, server: String? = nil) throws {
        name = "sp_\(sampleRate)_\(channels)_\(UUID().uuidString.prefix(6))"
        let map = channels == 1 ? "mono" : "front-left,front-right"
        serverArguments = server.map { ["-s", $0] } ?? []
        module = try Shell.run("pactl", serverArguments + ["load-module", "module-null-sink", "sink_name=\(name)", "format=s16le",
                                         "rate=\(sampleRate)", "channels=\(channels)", "channel_map=\(map)"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        _ = try? Shell.run("pactl", serverArguments + ["unload-module", module])
    }
}

/// Runs a program and returns its standard output.
enum Shell {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameter environment: variables set for the program, over the test's own.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
