import Foundation
import StreamPlay
import Synchronization
import Testing
import StreamPlayTesting

/// The `streamplay` executable, run as a person or a script would run it.
@Suite("streamplay command", .serialized, .needsTestServers)
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

    /// Runs streamplay with `arguments` and waits for it to exit.
    /// - Parameters:
    ///   - environment: the child's environment (this process's by default).
    ///   - onFirstLine: given stdout's first line while the child runs (a login URL to follow);
    ///     what it returns is written to the child's stdin, which is then closed. Without it,
    ///     stdin is /dev/null.
    ///   - directory: the child's working directory (this process's by default).
    static func run(_ arguments: [String], timeout: Double = 60, environment: [String: String]? = nil,
                    directory: String? = nil,
                    onFirstLine: (@Sendable (String) async throws -> String?)? = nil) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = onFirstLine.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        let reader = out.fileHandleForReading
        var collected = Data()
        if let onFirstLine {
            while !collected.contains(0x0A) {
                let chunk = await Task.detached { reader.availableData }.value
                if chunk.isEmpty { break }
                collected.append(chunk)
            }
            var answer: String?
            if let newline = collected.firstIndex(of: 0x0A) {
                answer = try await onFirstLine(String(decoding: collected[..<newline], as: UTF8.self))
            }
            if let writer = stdin?.fileHandleForWriting {
                if let answer { writer.write(Data(answer.utf8)) }
                try writer.close()
            }
        }
        async let stdout = Task.detached { reader.readDataToEndOfFile() }.value
        async let stderr = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw TimedOut(what: "streamplay \(arguments.joined(separator: " "))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        collected.append(await stdout)
        return Run(status: process.terminationStatus, stdout: String(decoding: collected, as: UTF8.self),
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
        #expect(SampleDifference.between(output.samples, Array(reference.samples[(5 * 44100 * 2)..<(Int(7.5 * 44100) * 2)])) == nil)
    }

    @Test("several inputs play in turn into one continuous WAV file")
    func severalInputs() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo-short.mp3")
        let path = TestEnvironment.temporaryPath("cli.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        let result = try await Self.run(["--quiet", "--output", "wav:\(path)", url, "\(try TestEnvironment.media())/cbr-44k-stereo-short.mp3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, reference.samples + reference.samples) == nil)
    }

    @Test("an album cut into tracks: one WAV file with no gap at the joins, an item event per track")
    func gaplessAlbum() async throws {
        let names = ["album/01.mp3", "album/02.mp3", "album/03.mp3"]
        let path = TestEnvironment.temporaryPath("cli-album.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = try TestEnvironment.http()
        let result = try await Self.run(["--json", "--output", "wav:\(path)"] + names.map { "\(base)/\($0)" })
        #expect(result.status == 0, "\(result.stderr)")
        let output = try PCM.wavSamples(path: path)
        let expected = try ReferenceAudio(joining: names)
        #expect(output.samples.count == expected.samples.count)
        #expect(SampleDifference.between(output.samples, expected.samples) == nil, "the joins are not the tracks' decodes end to end")
        let items = result.stdout.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "item" }
        #expect(items.compactMap { $0["index"] as? Int } == [0, 1, 2], "\(result.stdout)")
        #expect(items.compactMap { $0["input"] as? String } == names.map { "\(base)/\($0)" })
    }

    @Test("an HLS playlist plays like any URL")
    func hls() async throws {
        let path = TestEnvironment.temporaryPath("cli-hls.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await Self.run(["--quiet", "--output", "wav:\(path)", "\(try TestEnvironment.http())/hls/aes/index.m3u8"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("hls/source.mp3")).samples) == nil)
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

    /// An ID3v2.4 tag whose only frame is the title `title` (TIT2, UTF-8).
    static func id3v2Title(_ title: String) -> [UInt8] {
        func syncsafe(_ value: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) } }
        let body = [3] + Array(title.utf8)
        let frame = Array("TIT2".utf8) + syncsafe(body.count) + [0, 0] + body
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frame.count) + frame
    }

    /// When a line was first read from the child's stdout.
    final class FirstLineTime: Sendable {
        private let time = Mutex<ContinuousClock.Instant?>(nil)
        func record() { time.withLock { $0 = $0 ?? .now } }
        var value: ContinuousClock.Instant? { time.withLock { $0 } }
    }

    @Test("plain lines: each written as it happens, and a title's control characters never written")
    func plainOutputIsLiveAndPrintable() async throws {
        // A title that would set the terminal's title and clear its screen.
        let audio = try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/cbr-44k-mono.mp3"))
        let path = TestEnvironment.temporaryPath("hostile-title.mp3")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (Data(Self.id3v2Title("\u{1B}]0;owned\u{07}Song\u{1B}[2J")) + audio).write(to: URL(fileURLWithPath: path))
        let tagged = try await Self.run(["--output", "null", path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        #expect(tagged.stdout.contains("title: ]0;ownedSong[2J"), "\(tagged.stdout)")
        #expect(!tagged.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(tagged.stdout.debugDescription)")

        // Over a link throttled to the bitrate the play lasts seconds; its first line is read
        // while it plays, not when its exit flushes a buffer.
        let firstLine = FirstLineTime()
        let slow = try await Self.run(["--output", "null", "\(try TestEnvironment.http())/slow/cbr-44k-mono.mp3"]) { _ in
            firstLine.record()
            return nil
        }
        let end = ContinuousClock.now
        #expect(slow.status == 0, "\(slow.stderr)")
        let first = try #require(firstLine.value, "no line on stdout: \(slow.stdout)")
        #expect(end - first > .seconds(1.5), "the first line came \(end - first) before the exit")
    }

    @Test("a file whose name has a colon plays as a file; a name like it that is no file is still an unknown scheme")
    func fileNameWithAColon() async throws {
        let folder = TestEnvironment.temporaryPath("colon")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: "\(try TestEnvironment.media())/cbr-44k-mono.mp3",
                                         toPath: "\(folder)/Interlude: Intro.mp3")
        let wav = "\(folder)/out.wav"
        let played = try await Self.run(["--quiet", "--output", "wav:\(wav)", "Interlude: Intro.mp3"], directory: folder)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try SampleDifference.between(PCM.wavSamples(path: wav).samples, (try ReferenceAudio("cbr-44k-mono.mp3")).samples) == nil)
        let missing = try await Self.run(["--quiet", "--output", "null", "Interlude: Outro.mp3"], directory: folder)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("unknown scheme \"Interlude\""), "\(missing.stderr)")
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
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("cbr-44k-mono.mp3")).samples) == nil)
    }

    @Test("an M4A, as a new user makes one with ffmpeg, plays: exit 0 and the audio ffmpeg decodes, also when named .mp3")
    func m4aPlays() async throws {
        let path = TestEnvironment.temporaryPath("m4a.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for name in ["formats/tone.m4a", "formats/aac-named.mp3"] {
            let result = try await Self.run(["--output", "wav:\(path)", "\(try TestEnvironment.media())/\(name)"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("ended"), "\(name): \(result.stdout)")
            #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio(name)).samples) == nil, "\(name)")
        }
    }

    @Test("--replaygain track applies the tag's gain and --json reports it; a bad mode is refused")
    func replayGain() async throws {
        let path = TestEnvironment.temporaryPath("rg.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = "\(try TestEnvironment.media())/formats/rg-tagged.flac"
        let result = try await Self.run(["--replaygain", "track", "--json", "--output", "wav:\(path)", file])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let metadata = try #require(objects.last { $0["event"] as? String == "metadata" && $0["replayGain"] != nil },
                                    "no metadata event with a gain: \(result.stdout)")
        #expect(metadata["replayGain"] as? Double == -6.02)
        #expect(metadata["replayGainScope"] as? String == "track" && metadata["replayGainSource"] as? String == "tags")
        let expected = PCM.samples(try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/formats/rg-tagged.flac.track.raw")))
        let played = try PCM.wavSamples(path: path).samples
        #expect(played.count == expected.count)
        #expect(zip(played, expected).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "the gain was not applied")

        let preamp = try await Self.run(["--replaygain", "album", "--replaygain-preamp=-1", "--json", "--output", "null", file])
        #expect(preamp.status == 0, "\(preamp.stderr)")
        #expect(preamp.stdout.contains("\"replayGain\":-3.5"), "\(preamp.stdout)")

        let bad = try await Self.run(["--replaygain", "loud", file])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("replaygain"), "\(bad.stderr)")
    }

    @Test("a damaged M4A is refused by name: exit 1 and no audio written")
    func damagedM4ARefused() async throws {
        let path = TestEnvironment.temporaryPath("bad.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await Self.run(["--output", "wav:\(path)", "\(try TestEnvironment.media())/formats/truncated.m4a"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains("MP4"), "\(result.stderr)")
        #expect(!result.stderr.contains("[mov"), "FFmpeg's own log reached the terminal: \(result.stderr)")
        #expect(!result.stdout.contains("ended"), "\(result.stdout)")
        #expect(((try? PCM.wavSamples(path: path).samples) ?? []).isEmpty)
    }

    /// Runs the command with an empty file named `soname` first on the library path, so that
    /// the dynamic loader cannot load that library. A short MP3 file must still play, exactly
    /// (were the library linked, the engine itself would not load: exit 127), and `refused`
    /// must fail with exit 1, every one of `reasons` in its error, and no audio written.
    static func expectPlays(without soname: String, refused: String, reasons: [String],
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let directory = TestEnvironment.temporaryPath("broken-\(soname)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: "\(directory)/\(soname)", contents: Data()), sourceLocation: sourceLocation)
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = directory
        let path = TestEnvironment.temporaryPath("broken-\(soname).wav")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let file = try await run(["--output", "wav:\(path)", "\(try TestEnvironment.media())/cbr-44k-stereo-short.mp3"],
                                 environment: environment)
        #expect(file.status == 0, "\(file.stderr)", sourceLocation: sourceLocation)
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil,
                sourceLocation: sourceLocation)

        try? FileManager.default.removeItem(atPath: path)
        let failed = try await run(["--output", "wav:\(path)", refused], environment: environment)
        #expect(failed.status == 1, "\(failed.stdout)", sourceLocation: sourceLocation)
        #expect(reasons.allSatisfy { failed.stderr.contains($0) }, "\(failed.stderr)", sourceLocation: sourceLocation)
        #expect(((try? PCM.wavSamples(path: path).samples) ?? []).isEmpty, sourceLocation: sourceLocation)
    }

    /// FFmpeg's libraries are not linked but loaded at the first stream that needs them: without
    /// libavformat, an MP3 still plays, and an M4A fails naming the library.
    @Test("FFmpeg is loaded only for a stream that needs it; one that cannot be loaded fails the play by name")
    func ffmpegLoadedOnDemand() async throws {
        let soname = try #require(
            try Shell.run("/sbin/ldconfig", ["-p"]).split(separator: "\n")
                .compactMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) }
                .first { $0.hasPrefix("libavformat.so.") },
            "ldconfig knows no libavformat")
        try await Self.expectPlays(without: soname, refused: "\(try TestEnvironment.media())/formats/tone.m4a",
                                   reasons: ["FFmpeg", soname])
    }

    /// libcurl is not linked either (see `CCurl.h`): without it, a file still plays, and a URL
    /// fails naming the library.
    @Test("libcurl is loaded, not linked: without it a file still plays, and a URL fails by name")
    func curlLoadedNotLinked() async throws {
        try await Self.expectPlays(without: "libcurl.so.4", refused: "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3",
                                   reasons: ["cannot load libcurl", "libcurl.so.4"])
    }

    /// A command line that names nothing on the network (files, `file://` URLs, options,
    /// `--help`, `--version`) does not load libcurl; one with an `http` URL or a service link begins loading
    /// it at once, before any request. The dynamic loader's own log (`LD_DEBUG=files`, on
    /// stderr) says which libraries were loaded.
    @Test("libcurl is loaded only when the command line names something on the network")
    func curlOnlyForTheNetwork() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        environment["LD_DEBUG_OUTPUT"] = nil
        // No service is set up: a service link fails before any request.
        for key in environment.keys where key.hasPrefix("STREAMPLAY_SOUNDCLOUD_") { environment[key] = nil }
        environment["STREAMPLAY_CONFIG"] = TestEnvironment.temporaryPath("no-config.json")
        environment["XDG_CONFIG_HOME"] = TestEnvironment.temporaryPath("no-config")
        let path = TestEnvironment.temporaryPath("curl-only-for-network.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = "\(try TestEnvironment.media())/cbr-44k-stereo-short.mp3"
        let url = "\(try TestEnvironment.http())/cbr-44k-stereo-short.mp3"
        /// stderr without the loader's lines, for a failure's message.
        func own(_ run: Run) -> String {
            run.stderr.split(separator: "\n").filter { !$0.contains(":\t") }.suffix(5).joined(separator: " / ")
        }

        for arguments in [["--output", "wav:\(path)", file, "file://\(file)"], ["--help"], [url, "--help"], [url, "--version"]] {
            let run = try await Self.run(arguments, environment: environment)
            #expect(run.status == 0, "\(arguments): \(own(run))")
            #expect(run.stderr.contains("libStreamPlayCLI.so"), "\(arguments): no loader log")
            #expect(!run.stderr.contains("libcurl.so"), "\(arguments) loaded libcurl")
        }
        // Refused before any request (the volume is out of range), so only the load begun
        // ahead can have brought libcurl in.
        for input in [url, "soundcloud:tracks:1"] {
            let refused = try await Self.run(["--volume", "5000", input], environment: environment)
            #expect(refused.status != 0 && refused.stderr.contains("--volume"), "\(input): \(own(refused))")
            #expect(refused.stderr.contains("file=libcurl.so.4"), "\(input): libcurl was not begun ahead")
        }
        // And a URL's play goes on to use it.
        try? FileManager.default.removeItem(atPath: path)
        let played = try await Self.run(["--output", "wav:\(path)", url], environment: environment)
        #expect(played.status == 0, "\(own(played))")
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples,
                                             (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil)
        // A local playlist that lists the URL is not seen ahead: its request loads libcurl
        // itself, and the exit waits for that load.
        let playlist = TestEnvironment.temporaryPath("curl-only-for-network.m3u")
        defer { try? FileManager.default.removeItem(atPath: playlist) }
        try "#EXTM3U\n\(url)\n".write(toFile: playlist, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: path)
        let listed = try await Self.run(["--output", "wav:\(path)", playlist], environment: environment)
        #expect(listed.status == 0, "\(own(listed))")
        #expect(listed.stderr.contains("file=libcurl.so.4"), "the playlist's request did not load libcurl")
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples,
                                             (try ReferenceAudio("cbr-44k-stereo-short.mp3")).samples) == nil)
    }

    @Test("bad options are refused with usage help")
    func badOptions() async throws {
        for arguments in [["--output", "speaker", "x.mp3"], ["--start", "abc", "x.mp3"], ["--volume", "-5", "x.mp3"], []] {
            let result = try await Self.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
    }

    @Test("--version comes from the front end alone; everything else runs in the engine library beside it")
    func frontEndAndEngine() async throws {
        let version = try await Self.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == StreamPlayVersion.current + "\n")
        let help = try await Self.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:"))
        // The executable without its engine says what it misses.
        let directory = TestEnvironment.temporaryPath("front-end-alone")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let alone = directory + "/streamplay"
        try? FileManager.default.removeItem(atPath: alone)
        try FileManager.default.copyItem(atPath: Self.executable, toPath: alone)
        func runAlone(_ argument: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: alone)
            process.arguments = [argument]
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stdout, stderr)
        }
        let versionAlone = try runAlone("--version")
        #expect(versionAlone.status == 0 && versionAlone.stdout == version.stdout)
        let helpAlone = try runAlone("--help")
        #expect(helpAlone.status == 127)
        #expect(helpAlone.stderr.contains("libStreamPlayCLI.so"))
    }

    @Test("SIGTERM and Ctrl-C (SIGINT) while playing: exit 143 and 130, never the status of the play the stop ends")
    func signalExitStatus() async throws {
        let url = "\(try TestEnvironment.http())/slow/cbr-44k-stereo.mp3"
        // Several rounds: the handler's exit and the exit of the command its stop lets finish
        // race, and the signal's status must win every time.
        for (signalNumber, expected) in [(SIGTERM, Int32(143)), (SIGINT, 130), (SIGTERM, 143), (SIGINT, 130)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = ["--output", "null", url]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(700))
            #expect(process.isRunning, "the play ended before the signal")
            kill(process.processIdentifier, signalNumber)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == expected,
                    "signal \(signalNumber): \(process.terminationReason) \(process.terminationStatus)")
        }
    }

    /// Runs streamplay on a pseudo-terminal, typing `keys` (a pause in seconds, then the key),
    /// and returns what it printed, then a last line "exit=STATUS quit=SECONDS" (the time from
    /// the last key to the exit).
    static func runOnTerminal(_ inputs: [String], keys: [(Double, String)]) throws -> (output: String, status: String) {
        let script = """
            import os, pty, sys, time, select
            exe, keys, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(exe, [exe, "--output", "null"] + inputs)
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
            for step in keys.split("|"):
                wait, key = step.split(":", 1)
                read_for(float(wait))
                os.write(fd, key.encode())
            start = time.time()
            _, status = os.waitpid(pid, 0)
            quit = time.time() - start
            read_for(0.2)
            sys.stdout.write(out.decode("utf-8", "replace"))
            print("\\nexit=%d quit=%.2f" % (os.waitstatus_to_exitcode(status), quit))
            """
        let path = TestEnvironment.temporaryPath("pty.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spec = keys.map { "\($0.0):\($0.1)" }.joined(separator: "|")
        let output = try Shell.run("python3", [path, Self.executable, spec] + inputs)
        let status = output.components(separatedBy: "\n").last { !$0.isEmpty } ?? ""
        return (output, status)
    }

    /// Runs `leader` (Python, at the indentation of a function body) as the session leader of a
    /// new pseudo-terminal, in the place of a shell, and returns what the terminal showed. It
    /// has `exe`, `inputs` and `spawn_job(foreground)`: streamplay playing `inputs` to the null
    /// output as a job in a process group of its own, with job control's signals at their
    /// defaults (as a shell's jobs have them), and with the terminal once `foreground` (the
    /// leader hands it over). What the leader prints goes through the terminal too.
    static func runInTerminalSession(leader: String, inputs: [String]) throws -> String {
        // Inside `if pid == 0:` and `def leader():`, two levels in.
        let indented = leader.split(separator: "\n", omittingEmptySubsequences: false).map { "        " + $0 }.joined(separator: "\n")
        let script = """
            import os, pty, select, signal, sys, termios, time
            exe, inputs = sys.argv[1], sys.argv[2:]
            def spawn_job(foreground):
                child = os.fork()
                if child == 0:
                    os.setpgid(0, 0)
                    for number in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP):
                        signal.signal(number, signal.SIG_DFL)
                    while foreground and os.tcgetpgrp(0) != os.getpgrp():
                        time.sleep(0.01)
                    os.execv(exe, [exe, "--output", "null"] + inputs)
                try:
                    os.setpgid(child, child)
                except OSError:
                    pass
                return child
            def finish(child):
                # The exit status, or 200 + the signal that stopped the job (killed then).
                _, status = os.waitpid(child, os.WUNTRACED)
                if os.WIFSTOPPED(status):
                    os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    return 200 + os.WSTOPSIG(status)
                return os.waitstatus_to_exitcode(status)
            pid, fd = pty.fork()
            if pid == 0:
                def leader():
            \(indented)
                leader()
                sys.stdout.flush()
                os._exit(0)
            out = b""
            while True:
                r, _, _ = select.select([fd], [], [], 30)
                if not r:
                    break
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            os.waitpid(pid, 0)
            sys.stdout.write(out.decode("utf-8", "replace"))
            """
        let path = TestEnvironment.temporaryPath("pty-session.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Shell.run("python3", [path, Self.executable] + inputs)
    }

    /// The `key=value` line the leader printed, through the terminal (which ends lines with CR LF).
    static func leaderLine(_ output: String, startingWith key: String) -> String {
        output.range(of: key).map { String(output[$0.lowerBound...].prefix { !$0.isNewline }) } ?? ""
    }

    @Test("on a terminal but in the background (streamplay x &): plain lines, the terminal's modes and keys left to the shell")
    func backgroundOnTerminal() async throws {
        let output = try Self.runInTerminalSession(leader: """
            print("exit=%d" % finish(spawn_job(False)))
            """, inputs: ["\(try TestEnvironment.http())/slow/cbr-44k-mono.mp3"])
        // A background process whose thread blocks SIGTTOU and SIGTTIN is not stopped by them:
        // its tcsetattr changes the shell's terminal, and its reads fail at once (EIO), so a
        // key reader would spin.
        #expect(Self.leaderLine(output, startingWith: "exit=") == "exit=0", "\(output)")
        #expect(output.contains("ended") && !output.contains("\u{1B}["), "plain lines, no progress line: \(output)")
    }

    @Test("on a terminal, Ctrl-Z then bg: the terminal's settings are given back before it stops, and it plays on in the background")
    func suspendedAndContinuedInBackground() async throws {
        // As a shell: the job gets the terminal; Ctrl-Z stops it and the shell takes the
        // terminal back (ignoring SIGTTOU to do so); bg continues it.
        let output = try Self.runInTerminalSession(leader: """
            for number in (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP):
                signal.signal(number, signal.SIG_IGN)
            child = spawn_job(True)
            os.tcsetpgrp(0, child)
            time.sleep(1.5)
            os.killpg(child, signal.SIGTSTP)
            _, status = os.waitpid(child, os.WUNTRACED)
            stopped = os.WIFSTOPPED(status)
            os.tcsetpgrp(0, os.getpgrp())
            lflag = termios.tcgetattr(0)[3]
            restored = bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)
            os.killpg(child, signal.SIGCONT)
            print("stopped=%s restored=%s exit=%d" % (stopped, restored, finish(child)))
            """, inputs: ["\(try TestEnvironment.http())/slow/cbr-44k-mono.mp3"])
        #expect(Self.leaderLine(output, startingWith: "stopped=") == "stopped=True restored=True exit=0", "\(output)")
    }

    @Test("on a terminal: a progress line, space pauses and resumes, q quits at once")
    func terminalKeys() async throws {
        let run = try Self.runOnTerminal(["\(try TestEnvironment.http())/slow/cbr-44k-stereo.mp3"],
                                         keys: [(1.5, " "), (1.0, " "), (1.0, "q")])
        #expect(run.output.contains("paused"), "space did not pause: \(run.output)")
        #expect(run.output.contains("\r") && run.output.contains("/"), "no progress line: \(run.output)")
        #expect(run.status.hasPrefix("exit=0"), "\(run.status)")
        let quitTime = Double(run.status.split(separator: "=").last ?? "") ?? 99
        #expect(quitTime < 1, "q took \(quitTime) s")
    }

    @Test("on a terminal: > plays the next input, < the one before")
    func terminalQueueKeys() async throws {
        let base = try TestEnvironment.http()
        let inputs = ["\(base)/slow/cbr-44k-stereo.mp3", "\(base)/slow/cbr-44k-mono.mp3"]
        let run = try Self.runOnTerminal(inputs, keys: [(1.5, ">"), (1.5, "<"), (1.5, "q")])
        // What follows each "Playing [" (the pty ends lines with CR LF).
        let announcements = run.output.components(separatedBy: "Playing [").dropFirst()
        #expect(announcements.map { $0.prefix(4) } == ["1/2]", "2/2]", "1/2]"], "\(run.output)")
        #expect(run.status.hasPrefix("exit=0"), "\(run.status)")
    }

    @Test("on a terminal: the line shows Artist – Title from the tag and the volume; 9 and 0 change it, m mutes and unmutes")
    func terminalVolumeAndNames() async throws {
        let run = try Self.runOnTerminal(["\(try TestEnvironment.http())/slow/tagged/song-a.mp3"],
                                         keys: [(1.5, "9"), (0.6, "9"), (0.6, "0"), (0.6, "m"), (0.6, "m"), (0.6, "q")])
        #expect(run.status.hasPrefix("exit=0"), "\(run.status)")
        let lines = run.output.components(separatedBy: "\r")
        #expect(lines.contains { $0.contains("vol 100%") }, "\(run.output)")
        // Each key's effect shows in a later line, in order.
        let volumes = lines.compactMap { line -> String? in
            guard let range = line.range(of: "vol ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "%" })
        }
        var deduplicated: [String] = []
        for volume in volumes where deduplicated.last != volume { deduplicated.append(volume) }
        #expect(deduplicated == ["100", "95", "90", "95", "0", "95"], "volumes shown: \(deduplicated)")
        #expect(run.output.contains("StreamPlay Testers – Song A"), "no Artist – Title: \(run.output)")
    }
}
