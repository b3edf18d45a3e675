import Foundation
import Testing

/// `streamplay` on the session bus, and its generated shell completions.
@Suite("streamplay MPRIS and completions", .serialized, .needsTestServers)
struct MPRISCommandLineTests {
    /// Starts `streamplay` with `arguments` (stdin /dev/null; stdout and stderr to the pipes
    /// given, else /dev/null) and waits for it on the session bus. The caller ends the process.
    /// - Returns: the process, and its player name: streamplay, or streamplay.instancePID when
    ///   another streamplay has that.
    static func startOnBus(_ arguments: [String], stdout: Pipe? = nil, stderr: Pipe? = nil) async throws -> (Process, String) {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        let names = ["streamplay", "streamplay.instance\(process.processIdentifier)"]
        var listed: String?
        do {
            try await MPRISTests.eventually("streamplay on the bus", within: 10) {
                listed = try Shell.run("playerctl", ["-l"]).split(separator: "\n").map(String.init).first { names.contains($0) }
                return listed != nil
            }
        } catch {
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
        return (process, try #require(listed))
    }

    @Test func theCommandRegistersAsStreamplay() async throws {
        let url = "\(try TestEnvironment.http())/tagged/song-b.mp3"
        let (process, name) = try await Self.startOnBus(["--quiet", "--output", "pulse", "--length", "20", url])
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try await MPRISTests.eventually("the tags of song B", within: 10) {
            try MPRISTests.playerctl(name, "metadata", "xesam:title") == "Song B"
        }
        #expect(try MPRISTests.playerctl(name, "metadata", "xesam:artist") == "StreamPlay Testers")
        try MPRISTests.playerctl(name, "stop")
        try await MPRISTests.eventually("streamplay to end after Stop", within: 10) { !process.isRunning }
    }

    @Test("a track added over MPRIS after the command's own input plays next, named by its URL, and the command exits 0")
    func aTrackAddedOverMPRISPlays() async throws {
        let base = try TestEnvironment.http()
        let added = "\(base)/tagged/song-b.mp3"
        let out = Pipe(), err = Pipe()
        // Throttled to its bitrate, the one input plays for seconds: time to add a track.
        let (process, name) = try await Self.startOnBus(["--output", "null", "\(base)/slow/cbr-44k-mono.mp3"],
                                                        stdout: out, stderr: err)
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let ids = try MPRISTests.trackIDs(name)
        try #require(ids.count == 1, "Tracks: \(ids)")
        try MPRISTests.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.AddTrack",
                                ["string:\(added)", "objpath:\(ids[0])", "boolean:false"])
        try await MPRISTests.eventually("streamplay to end", within: 30) { !process.isRunning }
        // Read once it has exited (a few lines, well within a pipe's buffer): a blocking read
        // meanwhile would hold a thread of the task pool the polling above needs.
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "status \(process.terminationStatus), stderr: \(errors)")
        #expect(output.contains("Playing [2/2] \(added)"), "\(output)")
    }

    @Test func withoutASessionBusVerboseSaysWhyAndPlaybackGoesOn() async throws {
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/streamplay-no-bus"
        let run = try await CommandLineTests.run(["--verbose", "--output", "null", url], environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("MPRIS is off: no D-Bus session bus"))
    }

    @Test func completionScriptsNameTheSubcommands() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let run = try await CommandLineTests.run(["--generate-completion-script", shell])
            #expect(run.status == 0)
            for subcommand in ["play", "login", "logout", "whoami", "resolve"] {
                #expect(run.stdout.contains(subcommand), "\(shell) completion lacks \(subcommand)")
            }
        }
        let bash = try await CommandLineTests.run(["--generate-completion-script", "bash"])
        #expect(bash.stdout.contains("complete -"), "a bash completion script registers with `complete`")
    }

    @Test func theInstallScriptPutsCompletionsUnderPrefix() async throws {
        let prefix = TestEnvironment.temporaryPath("prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["PREFIX=\(prefix)", "bash", root.appendingPathComponent("scripts/install-completions.sh").path,
                             "--binary", CommandLineTests.executable, "--no-man"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for file in ["share/bash-completion/completions/streamplay", "share/zsh/site-functions/_streamplay",
                     "share/fish/vendor_completions.d/streamplay.fish"] {
            let text = (try? String(contentsOfFile: "\(prefix)/\(file)", encoding: .utf8)) ?? ""
            #expect(text.contains("whoami"), "\(file)")
        }
    }
}
