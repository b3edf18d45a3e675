import ArgumentParser
import Foundation

/// `streamplay-bench`: StreamPlay measured side by side with mpg123, mpv, ffplay and
/// GStreamer. scripts/bench.sh sets up the media and servers and runs it.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streamplay-bench",
        abstract: "Measures StreamPlay against mpg123, mpv, ffplay and GStreamer on this machine.",
        subcommands: [RunCommand.self, RenderCommand.self, MemoryGrowthCommand.self, DecodeCommand.self,
                      ScaleCommand.self],
        defaultSubcommand: RunCommand.self
    )
}

/// Runs the scenarios in interleaved rounds and writes the JSON and Markdown reports.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the benchmark scenarios.")

    @Option(help: "Directory of the media made by scripts/make-bench-media.sh.")
    var media: String

    @Option(help: "The streamplay executable to measure (a release build).")
    var streamplay: String

    @Option(help: "Where to write the results as JSON.")
    var json: String

    @Option(help: "Where to write the results as a Markdown table.")
    var markdown: String

    @Option(help: "Where to write the summary table alone (for the README).")
    var summary: String?

    @Option(help: "Where to write the format scenario's results as JSON, apart from the others (with --formats-markdown; without both, they join the others).")
    var formatsJson: String?

    @Option(help: "Where to write the format scenario's results as a Markdown report.")
    var formatsMarkdown: String?

    @Option(help: "Where to write the scale scenario's results as JSON, apart from the others (with --scale-markdown; without both, they join the others).")
    var scaleJson: String?

    @Option(help: "Where to write the scale scenario's results as a Markdown report.")
    var scaleMarkdown: String?

    @Option(help: "Rounds of each scenario (at least 7 for figures worth quoting).")
    var rounds: Int?

    @Flag(help: "A short run that only checks that every scenario works: one round, small files.")
    var smoke = false

    @Option(help: "Comma-separated scenarios to run: \(Scenarios.all.map { $0.key }.joined(separator: ",")).")
    var scenarios: String?

    @Option(help: "Comma-separated players to measure (library, streamplay, mpg123, mpv, ffplay, gstreamer, pacat, ffmpeg, probe); all by default.")
    var players: String?

    @Option(help: "The command line to print in the report.")
    var commandLine = "bash scripts/bench.sh"

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        func required(_ name: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw ValidationError("\(name) is not set: run the harness through scripts/bench.sh")
            }
            return value
        }
        _ = try required("PULSE_SERVER")
        let roundCount = rounds ?? (smoke ? 1 : 7)
        let context = try BenchContext(
            mediaDirectory: media, httpBase: try required("STREAMPLAY_TEST_HTTP"),
            faultsBase: try required("STREAMPLAY_TEST_FAULTS"), accessLog: try required("STREAMPLAY_TEST_ACCESS_LOG"),
            streamplay: streamplay, rounds: roundCount, smoke: smoke, only: try chosenPlayers(),
            pipewireServer: environment["STREAMPLAY_TEST_PIPEWIRE_SERVER"].flatMap { $0.isEmpty ? nil : $0 })
        defer { context.releaseSinks() }
        let chosen = scenarios.map { Set($0.split(separator: ",").map(String.init)) }
        if let chosen {
            let unknown = chosen.subtracting(Scenarios.all.map { $0.key })
            guard unknown.isEmpty else { throw ValidationError("unknown scenario(s): \(unknown.sorted().joined(separator: ", "))") }
        }

        var versions: [String: String] = [:]
        for subject in context.subjects + (context.hasFFmpegDecode ? [.ffmpegDecode] : []) {
            if let version = subject.version() { versions[subject.rawValue] = version }
        }
        var report = BenchReport(
            date: Self.today(), machine: Self.machine(), command: commandLine, rounds: roundCount, smoke: smoke,
            versions: versions,
            skipped: context.missing.map { "\($0.rawValue): \($0.program ?? "it") is not installed" },
            scenarios: [], notes: [])
        // The format and scale scenarios' results go to files of their own when given, so that
        // running one alone leaves the other scenarios' results as they were (and the other way
        // round).
        let apartPaths = separatePaths()
        var apart: [String: BenchReport] = [:]
        for key in apartPaths.keys {
            var own = report
            // Each report names the programs it measured: the format scenario no mpg123 or
            // pacat, the scale scenario only the library (and so skips no peer either).
            if key == Scale.key {
                own.versions = [:]
                own.skipped = []
            } else {
                own.versions = versions.filter { $0.key != Subject.mpg123.rawValue && $0.key != Subject.pacatFloor.rawValue }
            }
            apart[key] = own
        }
        if apartPaths[FormatScenario.key] != nil { report.versions[Subject.ffmpegDecode.rawValue] = nil }
        let ran = Scenarios.all.filter { chosen?.contains($0.key) ?? true }
        let writesMain = ran.contains { apartPaths[$0.key] == nil }
        let writesApart = ran.map { $0.key }.filter { apartPaths[$0] != nil }
        for scenario in ran {
            let started = MonotonicClock.now()
            log("\(scenario.key): \(roundCount) round(s)")
            let results = try scenario.run(context)
            // A scenario's recorded sinks load the machine (see BenchSink): none outlives it.
            context.releaseSinks()
            for result in results {
                result.summarise()
                if apart[scenario.key] != nil { apart[scenario.key]?.scenarios.append(result) } else { report.scenarios.append(result) }
            }
            log(String(format: "%@: done in %.0f s", scenario.key, MonotonicClock.now() - started))
            // Partial results survive a later failure.
            if writesMain { try write(report) }
            for key in writesApart { try writeApart(apart[key]!, to: apartPaths[key]!) }
        }
        var notes: [String] = []
        let spreads = context.clockSpreads.sorted { $0.key < $1.key }
            .map { String(format: "%@ %.1f ms", $0.key, $0.value * 1000) }
        if !spreads.isEmpty {
            notes.append("How far each monitor's arrivals drifted from a single sample clock during a scenario, the largest over the scenarios that loaded it (sink rewinds and late reads add up; hence the clock is taken locally, within half a second of each instant, and first sounds side by side are timed by arrival): \(spreads.joined(separator: ", ")).")
        }
        notes.append("Times are measured at the null sink's monitor with the sample clock (see Benchmarks/README.md): each includes the same fixed delay of the method, which the pacat floor shows.")
        report.notes += notes
        if writesMain {
            try write(report)
            print(MarkdownReport.render(report))
        }
        for key in writesApart {
            // The scale scenario times nothing at a monitor: the notes on sample clocks are not its.
            if key != Scale.key { apart[key]!.notes += notes }
            try writeApart(apart[key]!, to: apartPaths[key]!)
            print(MarkdownReport.render(apart[key]!))
        }
    }

    /// The scenarios whose results go to files of their own: those given both paths.
    private func separatePaths() -> [String: (json: String, markdown: String)] {
        var paths: [String: (json: String, markdown: String)] = [:]
        if let formatsJson, let formatsMarkdown { paths[FormatScenario.key] = (formatsJson, formatsMarkdown) }
        if let scaleJson, let scaleMarkdown { paths[Scale.key] = (scaleJson, scaleMarkdown) }
        return paths
    }

    private func writeApart(_ report: BenchReport, to paths: (json: String, markdown: String)) throws {
        try Self.encode(report).write(to: URL(fileURLWithPath: paths.json))
        try MarkdownReport.render(report).write(toFile: paths.markdown, atomically: true, encoding: .utf8)
    }

    private static func encode(_ report: BenchReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }

    private func chosenPlayers() throws -> [Subject]? {
        guard let players else { return nil }
        let names: [String: Subject] = ["library": .library, "streamplay": .streamplay, "mpg123": .mpg123, "mpv": .mpv,
                                        "ffplay": .ffplay, "gstreamer": .gstreamer, "pacat": .pacatFloor,
                                        "ffmpeg": .ffmpegDecode, "probe": .positionProbe]
        return try players.split(separator: ",").map { name in
            guard let subject = names[String(name)] else { throw ValidationError("unknown player: \(name)") }
            return subject
        }
    }

    private func write(_ report: BenchReport) throws {
        try Self.encode(report).write(to: URL(fileURLWithPath: json))
        try MarkdownReport.render(report).write(toFile: markdown, atomically: true, encoding: .utf8)
        if let summary {
            try MarkdownReport.summary(report).write(toFile: summary, atomically: true, encoding: .utf8)
        }
    }

    private func log(_ message: String) {
        FileHandle.standardError.write(Data("streamplay-bench: \(message)\n".utf8))
    }

    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date())
    }

    /// CPU model, core count and kernel: what the figures were measured on.
    private static func machine() -> String {
        let cpu = (ProcFile.read("/proc/cpuinfo") ?? "").split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, Linux \(kernel)"
    }
}

/// Writes the Markdown of a results.json again (after a change to the report's layout).
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render", abstract: "Render a results.json as the Markdown report and summary.")

    @Option(help: "The results.json of a run.")
    var json: String

    @Option(help: "Where to write the full Markdown report.")
    var markdown: String

    @Option(help: "Where to write the summary table.")
    var summary: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: json) else { throw ValidationError("cannot read \(json)") }
        let report = try JSONDecoder().decode(BenchReport.self, from: data)
        try MarkdownReport.render(report).write(toFile: markdown, atomically: true, encoding: .utf8)
        try MarkdownReport.summary(report).write(toFile: summary, atomically: true, encoding: .utf8)
    }
}

/// The child side of the long-stream memory scenario (started by the harness itself).
struct MemoryGrowthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-growth", abstract: "Decode a long stream to the null sink, printing resident memory.",
        shouldDisplay: false)

    @Option(help: "The stream to decode.")
    var url: String

    @Option(help: "Its length in seconds.")
    var seconds: Double

    func run() throws {
        let status = LongStreamMemory.decode(url: url, seconds: seconds)
        if status != 0 { throw ExitCode(status) }
    }
}
