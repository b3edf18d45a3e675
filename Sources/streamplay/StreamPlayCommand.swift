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
            Inputs play in turn as one queue: each track follows the last without a gap (the
            encoder delay and padding of LAME-tagged MP3s are removed), and one that fails is
            skipped. HLS streams (.m3u8: VOD, live, AES-128) and .m3u/.pls playlists play too.
            Keys on a terminal: space pause/resume, ← → seek 10 s, > next, < previous, q quit.
            Exit status: 0 when every input played, 1 when any failed (one line on stderr each).
            """,
        version: StreamPlayVersion.current
    )

    @Argument(help: "URLs (http, https, file) or paths, played in turn without gaps.")
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
        var locations: [MediaLocation] = []
        var names: [String] = []
        for input in inputs {
            do {
                locations.append(try MediaLocation(parsing: input))
                names.append(input)
            } catch {
                failures += 1
                StandardStream.error("streamplay: \(Redaction.describe(input)): \(error)\n")
                reporter.error(input: input, error: error)
            }
        }
        if !locations.isEmpty {
            failures += await play(locations, names: names, player: player, reporter: reporter)
        }
        reporter.finishLine()
        player.stop()
        if failures > 0 { throw ExitCode(1) }
    }

    /// Plays `locations` as one queue, each following the last without a gap.
    /// - Returns: how many of them failed.
    private func play(_ locations: [MediaLocation], names: [String], player: Player,
                      reporter: EventReporter) async -> Int {
        let events = player.events
        player.play(locations, startingAt: start?.seconds ?? 0, length: length?.seconds)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(mode(reporter) == .json ? 500 : 200))
                reporter.tick(player: player)
            }
        }
        defer { ticker.cancel() }
        var failures = 0
        var isInitialState = true
        var current = 0
        for await event in events {
            switch event {
            case .stateChanged(let state):
                // The stream opens with the state from before this play was asked for.
                if isInitialState {
                    isInitialState = false
                    continue
                }
                if case .failed(let error) = state {
                    failures += 1
                    reportFailure(names[current], error, reporter: reporter)
                }
                reporter.report(event, player: player)
                if state.isFinal { return failures }
            case .currentItemChanged(let index, _):
                current = index
                reporter.finishLine()
                reporter.begin(input: names[index], index: index, count: names.count)
                reporter.report(event, player: player)
            case .itemFailed(let item, let error):
                failures += 1
                let index = player.queue.firstIndex { $0.id == item.id } ?? current
                reportFailure(names[index], error, reporter: reporter)
            default:
                reporter.report(event, player: player)
            }
        }
        return failures
    }

    private func reportFailure(_ input: String, _ error: PlayerError, reporter: EventReporter) {
        reporter.finishLine()
        StandardStream.error("streamplay: \(Redaction.describe(input)): \(error)\n")
        reporter.error(input: input, error: error)
    }

    private func mode(_ reporter: EventReporter) -> ReportMode { reporter.mode }
}
