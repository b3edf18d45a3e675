import Foundation
import Synchronization
import Testing
@testable import StreamPlay

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

extension Player {
    /// Waits for a final state, failing after `seconds`.
    func finish(within seconds: Double) async throws -> PlayerState {
        try await withThrowingTaskGroup(of: PlayerState.self) { group in
            group.addTask { await self.waitUntilFinished() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw TimedOut(what: "the play to finish (state \(self.state))")
            }
            let result = try await group.next()!
            group.cancelAll()
            return result
        }
    }

    /// Waits for the play to end within `seconds`, expecting it ended and never failed (by
    /// `events`), then stops `recorder` once the last audio has had a moment to reach the sink's
    /// monitor.
    /// - Returns: the recording.
    func endRecording(_ recorder: MonitorRecorder, events: EventLog, within seconds: Double,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Int16] {
        #expect(try await finish(within: seconds) == .ended, sourceLocation: sourceLocation)
        try await Task.sleep(for: .milliseconds(300))
        let recording = try await recorder.stop()
        #expect(!events.states.contains { if case .failed = $0 { true } else { false } }, "states: \(events.states)",
                sourceLocation: sourceLocation)
        return recording
    }

    /// Polls until `condition` holds, failing after `seconds`.
    func wait(for what: String, within seconds: Double, until condition: @escaping @Sendable (Player) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition(self) {
            // The condition is read once more after the deadline: it may have come true
            // while this task slept past it on a loaded machine.
            if ContinuousClock.now > deadline, !condition(self) {
                throw TimedOut(what: "\(what) (state \(state), position \(position.map { "\($0) s" } ?? "none"))")
            }
            if case .failed(let error) = state { throw error }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Collects every event of a player, for assertions after the fact.
final class EventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[PlayerEvent]>([])
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ player: Player) {
        let stream = player.events
        let storage = self.storage
        task = Task {
            for await event in stream { storage.events.withEngineLock { $0.append(event) } }
        }
    }

    var all: [PlayerEvent] { storage.events.withEngineLock { $0 } }

    /// Lets the stream catch up: it delivers asynchronously, so the last events of a play that
    /// just finished may not be in ``all`` yet. Waits until the last state change in is to
    /// `state` (the player's final state now, which every event of its play precedes), for at
    /// most 5 s; the assertions after it then judge what came.
    func catchUp(until state: PlayerState) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while states.last != state && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    var states: [PlayerState] {
        all.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
    }

    deinit { task.cancel() }
}

/// Names of this process's engine threads (they are all called sp-…), but for `sp-curl-load`:
/// the process's one load of libcurl, which the first `Player` made begins, belongs to no play.
///
/// A thread that was joined can stay listed in /proc for a moment (the kernel wakes the joiner
/// before it has released the task), so a non-empty list is read again for up to half a second.
func engineThreadNames() -> [String] {
    func read() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            shortProcFile("/proc/self/task/\(task)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { $0.hasPrefix("sp-") && $0 != "sp-curl-load" }
    }
    var names = read()
    let deadline = ContinuousClock.now + .milliseconds(500)
    while !names.isEmpty && ContinuousClock.now < deadline {
        usleep(10_000)
        names = read()
    }
    return names
}

/// The text of a short file in /proc (at most 255 bytes), or `nil` if it cannot be read.
///
/// Read with `open` and `read`, not `String(contentsOfFile:)`: a thread can end between the
/// listing of /proc/self/task and the read of its file, and FoundationEssentials' file read
/// loses its 4 KiB buffer on that failure (LeakSanitizer reported it in a CI run).
func shortProcFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 255) }
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count], as: UTF8.self)
}

/// Requests the nginx access log recorded for `uri`: (status, range header, user agent). The
/// engine's side request for an MP3's last bytes (its ID3v1 tag) is left out unless asked for:
/// what these tests count is how the audio was fetched.
func accessLogEntries(for uri: String, includingTagRequests: Bool = false) throws -> [(status: Int, range: String, userAgent: String)] {
    let log = try String(contentsOfFile: try TestEnvironment.accessLog(), encoding: .utf8)
    return log.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 5, fields[0] == uri else { return nil }
        guard includingTagRequests || !isTrailingTagRange(fields[2]) else { return nil }
        return (Int(fields[1]) ?? 0, fields[2], fields[4])
    }
}

/// Whether `range` (a Range header, `bytes=FIRST-LAST`) asks for exactly the bytes the engine
/// reads at a file's end for an ID3v1 tag, ``ID3v1TagReader/trailerSize`` of them.
func isTrailingTagRange(_ range: String?) -> Bool {
    guard let range, range.hasPrefix("bytes=") else { return false }
    let bounds = range.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]) else { return false }
    return last - first + 1 == ID3v1TagReader.trailerSize
}

/// A configuration writing to a fresh WAV file.
func wavConfiguration() -> (PlayerConfiguration, String) {
    let path = TestEnvironment.temporaryPath("out.wav")
    return (PlayerConfiguration(output: .wavFile(path: path)), path)
}

/// What a play into a WAV file left behind: the final state, the audio written, every event, the
/// statistics at the end, and the player (stopped, so that its threads are gone).
struct WAVPlay {
    let state: PlayerState
    /// Read before the player was stopped (a stop starts them afresh).
    let statistics: PlaybackStatistics
    /// The WAV file's format and samples; empty when no file was written.
    let wav: (sampleRate: Int, channels: Int, samples: [Int16])
    let events: [PlayerEvent]
    let player: Player

    var samples: [Int16] { wav.samples }
}

/// Plays into a fresh WAV file until a final state, and reads what was written.
///
/// `configure` adjusts the configuration (a smaller ring, reconnect settings) and `start`
/// begins the play; the file is removed afterwards.
func playToWAV(within seconds: Double = 90,
               configure: (inout PlayerConfiguration) -> Void = { _ in },
               start: (Player) throws -> Void) async throws -> WAVPlay {
    var (configuration, path) = wavConfiguration()
    configure(&configuration)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let player = Player(configuration: configuration)
    let log = EventLog(player)
    try start(player)
    let state = try await player.finish(within: seconds)
    let statistics = player.statistics
    try await log.catchUp(until: state)
    player.stop()
    // No file, or a file without a complete header: nothing was played.
    let wav = (try? PCM.wavSamples(path: path)) ?? (sampleRate: 0, channels: 0, samples: [])
    return WAVPlay(state: state, statistics: statistics, wav: wav, events: log.all, player: player)
}

/// Plays `url` into a fresh WAV file from `start` seconds, for at most `length` seconds.
func playToWAV(_ url: String, startingAt start: Double = 0, length: Double? = nil, within seconds: Double = 90,
               configure: (inout PlayerConfiguration) -> Void = { _ in }) async throws -> WAVPlay {
    try await playToWAV(within: seconds, configure: configure) { $0.play(url, startingAt: start, length: length) }
}
