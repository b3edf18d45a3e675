import ArgumentParser
import FoundationEssentials
import Logging
import StreamPlay
import StreamPlayMPRIS
import StreamPlayServices

/// `streamplay [play]`: plays MP3 URLs, files and service links through the StreamPlay engine.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play audio streams, files and service links (the default command).",
        discussion: """
            Inputs play in turn as one queue: each track follows the last without a gap (the \
            encoder delay and padding of LAME-tagged MP3s are removed), and one that fails is \
            skipped. HLS streams (.m3u8: VOD, live, AES-128) and .m3u/.pls playlists play too. \
            Service links (https://soundcloud.com/..., soundcloud:tracks:N, spotify:track:ID) \
            play through the resolver: see `streamplay login` and `streamplay resolve`.

            Keys on a terminal: space pause/resume, ← → seek 10 s, > next, < previous, \
            9 0 (or - +) volume down and up by 5%, m mute and unmute, q quit.

            Exit status: 0 when every input played, 1 when any failed (one line on stderr each).
            """,
    )

    @Argument(help: "URLs (http, https, file), paths or service links, played in turn without gaps.")
    var inputs: [String]

    @Option(help: "Where audio goes: pulse, null, or wav:PATH.")
    var output: OutputChoice = .pulse

    @Option(help: "Start at TIME (seconds, or mm:ss).")
    var start: TimeValue?

    @Option(help: "Play TIME (seconds, or mm:ss) of each input at most.")
    var length: TimeValue?

    @Option(help: "Volume in percent (100 leaves samples unchanged).")
    var volume: Double = 100

    @Option(help: ArgumentHelp("ReplayGain: off, track or album (each falls back to the other's gain).",
                               valueName: "mode"))
    var replaygain: ReplayGainChoice = .off

    @Option(help: ArgumentHelp("Decibels added to every ReplayGain applied.", valueName: "dB"))
    var replaygainPreamp: Double = 0

    @Flag(inversion: .prefixedNo,
          help: "Lower a ReplayGain that would clip the track's peak (its peak tag) to full scale.")
    var replaygainClippingPrevention = true

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
        guard replaygainPreamp.isFinite, (-60...60).contains(replaygainPreamp) else {
            throw ValidationError("--replaygain-preamp must be from -60 to 60 dB.")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(verbose: verbose)
        var configuration = PlayerConfiguration(output: output.audioOutput)
        configuration.caCertificatesPath = caFile
        configuration.replayGain = ReplayGainSettings(mode: replaygain.mode, preamp: replaygainPreamp,
                                                      preventsClipping: replaygainClippingPrevention)
        let player = Player(configuration: configuration)
        player.volume = volume / 100
        // Published once the play is under way (see `play`): joining the session bus then
        // overlaps the play's start instead of delaying it.
        var mpris: MPRISService?
        defer { mpris?.stop() }

        let mode: ReportMode = json ? .json : (quiet ? .quiet : (Terminal.isInteractive ? .terminal : .plain))
        let reporter = EventReporter(mode: mode)
        let keys = mode == .terminal ? KeyReader(player: player) : nil
        keys?.start()
        SignalHandling.install(player: player, keys: keys)
        defer { keys?.stop() }

        var failures = 0
        var items: [PlayItem] = []
        var resolver: StreamResolver?
        for input in inputs {
            do {
                items.append(try await item(for: input, resolver: &resolver))
            } catch {
                failures += 1
                StandardStream.error("streamplay: \(Redaction.describe(input)): \(error)\n")
                reporter.error(input: input, error: error)
            }
        }
        if !items.isEmpty {
            failures += await play(items, player: player, reporter: reporter) {
                mpris = MPRISPublishing.start(player: player, verbose: verbose)
            }
        }
        reporter.finishLine()
        // Nothing may start the queue again once the play is over: a key or an MPRIS Next
        // coming now would open a new session the exit then cuts short.
        keys?.stop()
        mpris?.stop()
        mpris = nil
        player.stop()
        if failures > 0 { throw ExitCode(1) }
    }

    /// What `input` plays: a URL or path as it is, a service link through the resolver.
    private func item(for input: String, resolver: inout StreamResolver?) async throws -> PlayItem {
        // A file that is there plays as a file, whatever its name looks like ("Interlude: Intro.mp3"
        // is not a link of the scheme "Interlude"), as in mpv and mpg123.
        if FileManager.default.fileExists(atPath: input) {
            return PlayItem(location: .file(input), name: input, refresher: nil)
        }
        guard case .direct = try ServiceLink(parsing: input) else {
            if resolver == nil { resolver = try ServiceContext(caFile: caFile).resolver() }
            guard let resolver else { throw CommandFailure("no resolver") }
            let resolved = try await resolver.resolve(input)
            let preview = resolved.isPreview ? " (preview: \(resolved.previewReason ?? "not the whole track"))" : ""
            let name = (resolved.title ?? input) + preview
            return PlayItem(location: .remote(resolved.url), name: name, refresher: resolved.refresher)
        }
        return PlayItem(location: try MediaLocation(parsing: input), name: input, refresher: nil)
    }

    /// Plays `items` as one queue, each following the last without a gap.
    /// - Parameter started: called once the play is asked for, before its events are read.
    /// - Returns: how many of them failed.
    private func play(_ items: [PlayItem], player: Player, reporter: EventReporter,
                      started: () -> Void) async -> Int {
        let events = player.events
        let startTime = start?.seconds ?? 0
        if items.allSatisfy({ $0.refresher == nil }) {
            player.play(items.map(\.location), startingAt: startTime, length: length?.seconds)
        } else {
            // Signed service URLs expire: each item keeps its way to a fresh one.
            player.play(items[0].location, startingAt: startTime, length: length?.seconds, urlRefresher: items[0].refresher)
            for item in items.dropFirst() {
                player.enqueue(item.location, startingAt: startTime, length: length?.seconds, urlRefresher: item.refresher)
            }
        }
        // Items are named by their queue ids, not their indices: over MPRIS a track can be added,
        // removed or moved, and the command did not name those it did not add.
        let itemNames = Dictionary(zip(player.queue.map(\.id), items.map(\.name)), uniquingKeysWith: { first, _ in first })
        func name(of item: QueueItem?) -> String {
            guard let item else { return items[0].name }
            return itemNames[item.id] ?? item.location.description
        }
        started()
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(mode(reporter) == .json ? 500 : 200))
                reporter.tick(player: player)
            }
        }
        defer { ticker.cancel() }
        var failures = 0
        var isInitialState = true
        var current = player.queue.first
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
                    reportFailure(name(of: current), error, reporter: reporter)
                }
                reporter.report(event, player: player)
                if state.isFinal { return failures }
            case .currentItemChanged(let index, let item):
                current = item
                reporter.finishLine()
                reporter.begin(input: name(of: item), index: index, count: max(player.queue.count, index + 1))
                reporter.report(event, player: player)
            case .itemFailed(let item, let error):
                failures += 1
                reportFailure(name(of: item), error, reporter: reporter)
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

/// One input to play: where it is, the name shown, and how to renew an expiring URL.
struct PlayItem {
    let location: MediaLocation
    let name: String
    let refresher: URLRefresher?
}
