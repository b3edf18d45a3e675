import ArgumentParser
import FoundationEssentials
import Logging
import StreamPlay

/// `streamplay`: plays MP3 URLs and files through the StreamPlay engine.
@main
struct StreamPlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streamplay",
        abstract: "Play MP3 streams and files (HTTP, HTTPS, file paths).",
        discussion: """
            Keys on a terminal: space pause/resume, ← → seek 10 s, q quit.
            Exit status: 0 when every input played, 1 when any failed (one line on stderr each).
            """,
        version: StreamPlayVersion.current
    )

    @Argument(help: "URLs (http, https, file) or paths, played in turn.")
    var inputs: [String]

    @Option(help: "Where audio goes: pulse, null, or wav:PATH.")
    var output: OutputChoice = .pulse

    @Option(help: "Start at TIME (seconds, or mm:ss).")
    var start: TimeValue?

    @Option(help: "Play TIME (seconds, or mm:ss) of each input at most.")
    var length: TimeValue?

    @Option(help: "Volume in percent (100 leaves samples unchanged).")
    var volume: Double = 100

    @Option(help: "Trust the certificate authorities in this PEM file instead of the system's.")
    var caFile: String?

    @Flag(help: "Print one JSON object per line on stdout for each event, and position updates.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log what the engine does on stderr.")
    var verbose = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("Give at least one URL or path.") }
        guard volume.isFinite, (0...1600).contains(volume) else { throw ValidationError("--volume must be from 0 to 1600.") }
        if let length, length.seconds <= 0 { throw ValidationError("--length must be more than 0.") }
    }

    func run() async throws {
        let verbose = self.verbose
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
        var configuration = PlayerConfiguration(output: output.audioOutput)
        configuration.caCertificatesPath = caFile
        let player = Player(configuration: configuration)
        player.volume = volume / 100

        let mode: ReportMode = json ? .json : (quiet ? .quiet : (Terminal.isInteractive ? .terminal : .plain))
        let reporter = EventReporter(mode: mode)
        let keys = mode == .terminal ? KeyReader(player: player) : nil
        keys?.start()
        SignalHandling.install(player: player, keys: keys)
        defer { keys?.stop() }

        var failures = 0
        for input in inputs {
            if keys?.quitRequested == true { break }
            let final = await play(input, player: player, reporter: reporter, keys: keys)
            if case .failed(let error) = final {
                failures += 1
                reporter.finishLine()
                StandardStream.error("streamplay: \(Redaction.describe(input)): \(error)\n")
                reporter.error(input: input, error: error)
            }
        }
        reporter.finishLine()
        player.stop()
        if failures > 0 { throw ExitCode(1) }
    }

    private func play(_ input: String, player: Player, reporter: EventReporter, keys: KeyReader?) async -> PlayerState {
        let events = player.events
        reporter.begin(input: input)
        player.play(input, startingAt: start?.seconds ?? 0, length: length?.seconds)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(mode(reporter) == .json ? 500 : 200))
                reporter.tick(player: player)
            }
        }
        defer { ticker.cancel() }
        var isInitialState = true
        for await event in events {
            if case .stateChanged(let state) = event {
                // The stream opens with the state from before this play was asked for.
                if isInitialState {
                    isInitialState = false
                    continue
                }
                reporter.report(event, player: player)
                if state.isFinal { return state }
            } else {
                reporter.report(event, player: player)
            }
        }
        return player.state
    }

    private func mode(_ reporter: EventReporter) -> ReportMode { reporter.mode }
}
