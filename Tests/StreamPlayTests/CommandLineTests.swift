import Foundation
import Testing

/// The `streamplay` executable, run as a person or a script would run it.
@Suite("streamplay command", .serialized)
struct CommandLineTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The executable next to the test bundle (`scripts/test.sh` builds it).
    static var executable: String {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("streamplay").path
    }

    static func run(_ arguments: [String], timeout: Double = 60) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        async let stdout = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }.value
        async let stderr = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw TimedOut(what: "streamplay \(arguments.joined(separator: " "))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return Run(status: process.terminationStatus, stdout: String(decoding: await stdout, as: UTF8.self),
                   stderr: String(decoding: await stderr, as: UTF8.self))
    }

    @Test("--output wav with --start and --length writes exactly that stretch")
    func wavStartLength() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let path = TestEnvironment.temporaryPath("cli.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await Self.run(["--quiet", "--output", "wav:\(path)", "--start", "0:05", "--length", "2.5",
                                         "\(try TestEnvironment.http())/cbr-44k-stereo.mp3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "--quiet prints nothing")
        let output = try PCM.wavSamples(path: path)
        #expect(output.sampleRate == 44100 && output.channels == 2)
        #expect(output.samples == Array(reference.samples[(5 * 44100 * 2)..<(Int(7.5 * 44100) * 2)]))
    }

    @Test("several inputs play in turn into one continuous WAV file")
    func severalInputs() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo-short.mp3")
        let path = TestEnvironment.temporaryPath("cli.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        let result = try await Self.run(["--quiet", "--output", "wav:\(path)", url, "\(try TestEnvironment.media())/cbr-44k-stereo-short.mp3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PCM.wavSamples(path: path).samples == reference.samples + reference.samples)
    }

    @Test("--json prints one JSON object per line: states, format, duration, positions")
    func json() async throws {
        let result = try await Self.run(["--json", "--output", "null", "\(try TestEnvironment.http())/slow/cbr-44k-mono.mp3"])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let states = objects.filter { $0["event"] as? String == "state" }.compactMap { $0["state"] as? String }
        #expect(states == ["connecting", "buffering", "playing", "ended"])
        #expect(objects.contains { $0["event"] as? String == "format" && $0["sampleRate"] as? Int == 44100 && $0["channels"] as? Int == 1 })
        #expect(objects.contains { $0["event"] as? String == "duration" })
        let positions = objects.filter { $0["event"] as? String == "position" }.compactMap { $0["position"] as? Double }
        #expect(positions.count >= 3, "periodic position updates")
        #expect(positions == positions.sorted(), "positions only move forward")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\r"))
    }

    @Test("not on a terminal: plain lines, no control characters")
    func plainOutput() async throws {
        let result = try await Self.run(["--output", "null", "\(try TestEnvironment.http())/cbr-44k-mono.mp3"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\r"))
        #expect(result.stdout.contains("playing") && result.stdout.contains("ended"))
    }

    @Test("a failure: exit 1, one line on stderr naming the input and the cause; the rest still plays")
    func failure() async throws {
        let path = TestEnvironment.temporaryPath("cli.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = try TestEnvironment.http()
        let result = try await Self.run(["--quiet", "--output", "wav:\(path)", "\(base)/status/404?token=secret", "\(base)/cbr-44k-mono.mp3"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.contains("\(base)/status/404") == true)
        #expect(lines.first?.contains("HTTP 404") == true)
        #expect(!result.stderr.contains("secret"))
        #expect(try PCM.wavSamples(path: path).samples == (try ReferenceAudio("cbr-44k-mono.mp3")).samples)
    }

    @Test("bad options are refused with usage help")
    func badOptions() async throws {
        for arguments in [["--output", "speaker", "x.mp3"], ["--start", "abc", "x.mp3"], ["--volume", "-5", "x.mp3"], []] {
            let result = try await Self.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
    }

    @Test("on a terminal: a progress line, space pauses and resumes, q quits at once")
    func terminalKeys() async throws {
        let script = """
            import os, pty, sys, time, select
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], [sys.argv[1], "--output", "null", sys.argv[2]])
            out = b""
            def read_for(seconds):
                global out
                end = time.time() + seconds
                while time.time() < end:
                    r, _, _ = select.select([fd], [], [], 0.05)
                    if r:
                        try:
                            out += os.read(fd, 4096)
                        except OSError:
                            return
            read_for(1.5)
            os.write(fd, b" ")
            read_for(1.0)
            paused = b"paused" in out
            os.write(fd, b" ")
            read_for(1.0)
            os.write(fd, b"q")
            start = time.time()
            _, status = os.waitpid(pid, 0)
            print("paused" if paused else "not-paused", "progress" if b"\\r" in out and b"/" in out else "no-progress",
                  "exit=%d" % os.waitstatus_to_exitcode(status), "quit=%.2f" % (time.time() - start))
            """
        let path = TestEnvironment.temporaryPath("pty.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try Shell.run("python3", [path, Self.executable, "\(try TestEnvironment.http())/slow/cbr-44k-stereo.mp3"])
        #expect(output.contains("paused "), "space did not pause: \(output)")
        #expect(output.contains("progress"), "no progress line: \(output)")
        #expect(output.contains("exit=0"), "\(output)")
        let quitTime = Double(output.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 99
        #expect(quitTime < 1, "q took \(quitTime) s")
    }
}
