import Foundation
import Testing

/// `streamplay` on the session bus, and its generated shell completions.
@Suite("streamplay MPRIS and completions", .serialized, .needsTestServers)
struct MPRISCommandLineTests {
    @Test func theCommandRegistersAsStreamplay() async throws {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let url = "\(try TestEnvironment.http())/tagged/song-b.mp3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.executable)
        process.arguments = ["--quiet", "--output", "pulse", "--length", "20", url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        // The name is streamplay, or streamplay.instancePID when another streamplay has it.
        let names = ["streamplay", "streamplay.instance\(process.processIdentifier)"]
        var listed: String?
        try await MPRISTests.eventually("streamplay on the bus", within: 10) {
            listed = try Shell.run("playerctl", ["-l"]).split(separator: "\n").map(String.init).first { names.contains($0) }
            return listed != nil
        }
        let name = try #require(listed)
        try await MPRISTests.eventually("the tags of song B", within: 10) {
            try MPRISTests.playerctl(name, "metadata", "xesam:title") == "Song B"
        }
        #expect(try MPRISTests.playerctl(name, "metadata", "xesam:artist") == "StreamPlay Testers")
        try MPRISTests.playerctl(name, "stop")
        try await MPRISTests.eventually("streamplay to end after Stop", within: 10) { !process.isRunning }
    }

    @Test("a track added over MPRIS after the command's own input plays next, named by its URL, and the command exits 0")
    func aTrackAddedOverMPRISPlays() async throws {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let base = try TestEnvironment.http()
        let added = "\(base)/tagged/song-b.mp3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.executable)
        // Throttled to its bitrate, the one input plays for seconds: time to add a track.
        process.arguments = ["--output", "null", "\(base)/slow/cbr-44k-mono.mp3"]
        let out = Pipe(), err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let names = ["streamplay", "streamplay.instance\(process.processIdentifier)"]
        var listed: String?
        try await MPRISTests.eventually("streamplay on the bus", within: 10) {
            listed = try Shell.run("playerctl", ["-l"]).split(separator: "\n").map(String.init).first { names.contains($0) }
            return listed != nil
        }
        let name = try #require(listed)
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
