import ArgumentParser
import Foundation
import StreamPlay

/// Decoding alone, with no sound server: the CPU that decoding a whole file costs, per second
/// of audio, for the library, the `streamplay` command and `ffmpeg -f null` (the reference of
/// the format scenario's decode target). Each runs as a process of its own, decoding as fast as
/// it can, and is measured the same way: the kernel's CPU time for the whole process (wait4's
/// rusage), start-up included, over the audio's length.
enum DecodeCPU {
    /// The subjects measured, in the order of each round.
    static let subjects: [Subject] = [.library, .streamplay, .ffmpegDecode]

    /// The command that decodes `location` (a path, or a URL) to nothing, or nil for a subject
    /// that does not decode alone. The library runs in a harness process of its own
    /// (`streamplay-bench decode`, which only plays to the `.null` output).
    static func command(_ subject: Subject, location: String, context: BenchContext) -> [String]? {
        switch subject {
        case .library: [CommandLine.arguments[0], "decode", "--location", location]
        case .streamplay: [context.streamplay, "--quiet", "--output", "null", location]
        case .ffmpegDecode: ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", location, "-f", "null", "-"]
        default: nil
        }
    }

    /// CPU milliseconds per second of audio of one run of `command`, which decodes `seconds` of
    /// audio; nil when it failed or did not finish.
    static func measure(_ command: [String], seconds: Double) -> Double? {
        guard let finished = ChildProcess.runToEnd(command, timeout: max(120, seconds)),
              finished.exit.status == 0 else { return nil }
        return finished.exit.cpuSeconds / seconds * 1000
    }

    /// The child side: the library plays `location` to the `.null` output (which takes audio
    /// as fast as it comes) until it ends. Returns the exit status: 0 when it ended.
    static func decode(location: String) -> Int32 {
        guard let parsed = try? MediaLocation(parsing: location) else { return 2 }
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let start = MonotonicClock.now()
        player.play(parsed)
        // Polled, as LongStreamMemory does: the command runs no concurrency of its own. First
        // until the play has begun (the state leaves idle), then until it is over.
        while player.state == .idle, MonotonicClock.now() - start < 0.5 { MonotonicClock.sleep(0.001) }
        while !player.state.isFinal { MonotonicClock.sleep(0.002) }
        guard case .ended = player.state else {
            FileHandle.standardError.write(Data("decode: \(player.state)\n".utf8))
            return 1
        }
        return 0
    }
}

/// The child side of the decode CPU measure (started by the harness itself).
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Decode a file or URL to the null output as fast as it can.",
        shouldDisplay: false)

    @Option(help: "The file path or URL to decode.")
    var location: String

    func run() throws {
        let status = DecodeCPU.decode(location: location)
        if status != 0 { throw ExitCode(status) }
    }
}
