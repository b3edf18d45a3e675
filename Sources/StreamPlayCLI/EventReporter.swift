import FoundationEssentials
import StreamPlay
import Synchronization

/// How `streamplay` shows what happens.
enum ReportMode: Equatable {
    /// A one-line progress display, redrawn in place (stdout is a terminal).
    case terminal
    /// Plain lines for state changes, no control characters (stdin or stdout is not a terminal).
    case plain
    /// One JSON object per line for each event, and periodic positions.
    case json
    /// Nothing but errors (on stderr).
    case quiet
}

/// Prints events and progress in the chosen ``ReportMode``. Called from the command's task and
/// from its ticker task, hence the lock.
final class EventReporter: Sendable {
    let mode: ReportMode
    private let state = Mutex<(input: String, lineOpen: Bool)>(("", false))

    init(mode: ReportMode) {
        self.mode = mode
    }

    /// A new input plays: item `index` of `count`.
    func begin(input: String, index: Int, count: Int) {
        state.withEngineLock { $0.input = Redaction.describe(input) }
        let line = "Playing \(count > 1 ? "[\(index + 1)/\(count)] " : "")\(Redaction.describe(input))"
        switch mode {
        case .plain:
            Self.plainLine(line)
        case .terminal:
            // Over the progress line, which is redrawn below it.
            let open = state.withEngineLock { state in
                defer { state.lineOpen = false }
                return state.lineOpen
            }
            StandardStream.output("\(open ? "\r\u{1B}[2K" : "")\(Self.printable(line))\n")
        case .json, .quiet:
            break
        }
    }

    func report(_ event: PlayerEvent, player: Player) {
        let input = state.withEngineLock { $0.input }
        switch mode {
        case .json:
            emitJSON(Self.json(for: event, input: input))
        case .plain:
            if case .stateChanged(let playerState) = event, playerState != .connecting {
                Self.plainLine(playerState.name)
            } else if case .formatKnown(let format) = event {
                Self.plainLine("format: \(format)")
            } else if case .metadata(let metadata) = event, let title = metadata.title {
                Self.plainLine("title: \(title)")
            } else if case .seekRefused(let error) = event {
                Self.plainLine("\(error)")
            }
        case .terminal:
            if case .stateChanged = event { tick(player: player) }
        case .quiet:
            break
        }
    }

    /// A periodic update: the progress line, or a JSON position object.
    func tick(player: Player) {
        switch mode {
        case .json:
            guard let position = player.position else { return }
            var object: [String: JSONValue] = ["event": "position", "position": round3(position),
                                               "buffer": round3(player.bufferedFraction), "state": .string(player.state.name)]
            if let duration = player.duration { object["duration"] = round3(duration) }
            let statistics = player.statistics
            object["rebuffers"] = .integer(statistics.rebufferCount)
            object["rebufferSeconds"] = round3(statistics.rebufferSeconds)
            object["reconnects"] = .integer(statistics.reconnectCount)
            emitJSON(object)
        case .terminal:
            let position = player.position.map(TimeValue.format) ?? "--:--"
            let duration = player.duration.map(TimeValue.format) ?? "--:--"
            let fill = Int((player.bufferedFraction * 100).rounded())
            let volume = Int((player.volume * 100).rounded())
            var line = "\(padded(player.state.name, to: 10)) \(position) / \(duration)  buffer \(fill)%  vol \(volume)%"
            if let names = Self.names(player.metadata) {
                // Names come from the network: keep control characters off the terminal.
                line += "  " + String(Self.printable(names).prefix(60))
            }
            state.withEngineLock { $0.lineOpen = true }
            StandardStream.output("\r\u{1B}[2K\(line)")
        case .plain, .quiet:
            break
        }
    }

    /// "Artist – Title" when a tag names both, else the title (a station's "Artist - Title").
    static func names(_ metadata: StreamMetadata?) -> String? {
        guard let title = metadata?.title, !title.isEmpty else { return nil }
        guard let artist = metadata?.artist, !artist.isEmpty else { return title }
        return "\(artist) – \(title)"
    }

    /// One line of plain output, written at once (a reader of the pipe, `grep` say, sees each
    /// line as it happens, and in order with stderr's) and without control characters: plain
    /// mode is chosen for stdin alone not being a terminal, so stdout may well be one.
    private static func plainLine(_ line: String) {
        StandardStream.output(printable(line) + "\n")
    }

    /// `text` without control characters: names and titles come from the network, and must not
    /// drive the terminal.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
    }

    /// Ends the progress line so that the next output starts on a fresh line.
    func finishLine() {
        let open = state.withEngineLock { state in
            defer { state.lineOpen = false }
            return state.lineOpen
        }
        if open { StandardStream.output("\n") }
    }

    func error(input: String, error: any Error) {
        if mode == .json {
            emitJSON(["event": "error", "input": .string(Redaction.describe(input)), "message": .string("\(error)")])
        }
    }

    private static func json(for event: PlayerEvent, input: String) -> [String: JSONValue] {
        switch event {
        case .stateChanged(let state):
            var object: [String: JSONValue] = ["event": "state", "state": .string(state.name), "input": .string(input)]
            if case .failed(let error) = state { object["error"] = .string(error.description) }
            return object
        case .formatKnown(let format):
            return ["event": "format", "sampleRate": .integer(format.sampleRate), "channels": .integer(format.channels)]
        case .durationKnown(let seconds):
            return ["event": "duration", "duration": round3(seconds)]
        case .bufferingProgress(let fraction):
            return ["event": "buffering", "progress": round3(fraction)]
        case .seeked(let seconds):
            return ["event": "seeked", "position": round3(seconds)]
        case .seekRefused(let error):
            return ["event": "seekRefused", "error": .string(error.description)]
        case .rebuffered(let seconds):
            return ["event": "rebuffered", "duration": round3(seconds)]
        case .currentItemChanged(let index, _):
            return ["event": "item", "index": .integer(index), "input": .string(input)]
        case .itemFailed(_, let error):
            return ["event": "itemFailed", "error": .string(error.description)]
        case .metadata(let metadata):
            var object: [String: JSONValue] = ["event": "metadata"]
            if let title = metadata.title { object["title"] = .string(title) }
            if let url = metadata.url { object["url"] = .string(url) }
            if let artist = metadata.artist { object["artist"] = .string(artist) }
            if let album = metadata.album { object["album"] = .string(album) }
            if let gain = metadata.replayGain {
                object["replayGain"] = round3(gain.appliedGain)
                object["replayGainTag"] = round3(gain.tagGain)
                object["replayGainScope"] = .string(gain.scope.rawValue)
                object["replayGainSource"] = .string(gain.source.rawValue)
                object["replayGainLimited"] = .bool(gain.limitedByPeak)
                if let peak = gain.peak { object["replayGainPeak"] = .number(peak) }
            }
            return object
        }
    }

    private func emitJSON(_ object: [String: JSONValue]) {
        guard let line = JSONValue.line(object) else { return }
        StandardStream.output(line)
    }
}

private func round3(_ value: Double) -> JSONValue {
    .number((value * 1000).rounded() / 1000)
}

private func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}
