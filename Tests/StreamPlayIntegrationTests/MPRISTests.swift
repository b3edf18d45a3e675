import Foundation
import StreamPlay
import StreamPlayMPRIS
import Testing

/// A Player published with MPRISService, read and driven by playerctl (a real MPRIS client) on
/// the test servers' private session bus, while tagged MP3s play over HTTP into PulseAudio.
@Suite("MPRIS with playerctl", .serialized, .needsTestServers)
struct MPRISTests {
    @discardableResult
    static func playerctl(_ name: String, _ arguments: String...) throws -> String {
        try Shell.run("playerctl", ["-p", name] + arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` until it holds, failing after `seconds`.
    static func eventually(_ what: String, within seconds: Double = 5,
                           _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try !condition() {
            if ContinuousClock.now > deadline { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func playerctlReadsAndDrivesATaggedQueue() async throws {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let base = try TestEnvironment.http()
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: try TestEnvironment.pulseSink())))
        let name = "streamplaytest\(getpid())"
        let artwork = TestEnvironment.temporaryPath("artwork")
        let service = try MPRISService(player: player, name: name, artworkDirectory: artwork)
        defer {
            service.stop()
            player.stop()
            try? FileManager.default.removeItem(atPath: artwork)
        }
        #expect(service.busName == "org.mpris.MediaPlayer2.\(name)")
        let seeked = try SignalMonitor(member: "Seeked")
        defer { seeked.stop() }

        player.play(try ["a", "b", "c"].map { try MediaLocation(parsing: "\(base)/tagged/song-\($0).mp3") })
        try await player.wait(for: "playing", within: 10) { $0.state == .playing }

        // Listed, with status and tags.
        #expect(try Shell.run("playerctl", ["-l"]).split(separator: "\n").contains { $0 == name })
        try await Self.eventually("status Playing") { try Self.playerctl(name, "status") == "Playing" }
        #expect(try Self.playerctl(name, "metadata", "xesam:title") == "Song A")
        #expect(try Self.playerctl(name, "metadata", "xesam:artist") == "StreamPlay Testers")
        #expect(try Self.playerctl(name, "metadata", "xesam:album") == "Test Album")
        #expect(try Self.playerctl(name, "metadata", "xesam:url") == "\(base)/tagged/song-a.mp3")
        let length = try #require(Int64(try Self.playerctl(name, "metadata", "mpris:length")))
        #expect(abs(length - 30_000_000) < 100_000, "length \(length) µs")
        #expect(try Self.playerctl(name, "metadata", "xesam:trackNumber") == "1")
        // The cover (lame --ti) is written to a file of the user's only, named by mpris:artUrl.
        let artURL = try Self.playerctl(name, "metadata", "mpris:artUrl")
        #expect(artURL.hasPrefix("file://\(artwork)/") && artURL.hasSuffix(".png"), "artUrl \(artURL)")
        let artPath = String(artURL.dropFirst("file://".count))
        let cover = try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/formats/cover.png"))
        #expect(FileManager.default.contents(atPath: artPath) == cover, "the file is not the tag's picture")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: artPath)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "the cover file is readable by others: \(String(mode, radix: 8))")

        // Pause holds the position.
        try Self.playerctl(name, "pause")
        try await Self.eventually("status Paused") { try Self.playerctl(name, "status") == "Paused" }
        #expect(player.state == .paused)
        let pausedAt = try #require(Double(try Self.playerctl(name, "position")))
        try await Task.sleep(for: .seconds(1))
        let stillAt = try #require(Double(try Self.playerctl(name, "position")))
        #expect(abs(stillAt - pausedAt) < 0.05, "paused at \(pausedAt) s, then \(stillAt) s")
        #expect(abs(pausedAt - (player.position ?? -1)) < 0.05, "MPRIS position is the player's")

        // Seek to a position (SetPosition), and the Seeked signal.
        try Self.playerctl(name, "position", "15")
        try await Self.eventually("the seek to 15 s") { abs((player.position ?? 0) - 15) < 0.5 }
        try await Self.eventually("a Seeked signal of 15 s") { seeked.output.contains("int64 15000000") }

        // Resume: the position moves on from there.
        try Self.playerctl(name, "play")
        try await Self.eventually("status Playing") { try Self.playerctl(name, "status") == "Playing" }
        try await Self.eventually("the position to pass 15.5 s") {
            (Double(try Self.playerctl(name, "position")) ?? 0) > 15.5
        }

        // A relative seek (Seek).
        try Self.playerctl(name, "position", "5+")
        try await Self.eventually("the relative seek past 20 s") { (player.position ?? 0) >= 20 }

        // Volume, both ways.
        try Self.playerctl(name, "volume", "0.4")
        try await Self.eventually("the player's volume 0.4") { abs(player.volume - 0.4) < 0.001 }
        player.volume = 0.7
        try await Self.eventually("MPRIS volume 0.7") {
            abs((Double(try Self.playerctl(name, "volume")) ?? 0) - 0.7) < 0.001
        }

        // Next and previous on the queue.
        try Self.playerctl(name, "next")
        try await Self.eventually("Song B") { try Self.playerctl(name, "metadata", "xesam:title") == "Song B" }
        #expect(player.currentIndex == 1)
        try Self.playerctl(name, "previous")
        try await Self.eventually("Song A") { try Self.playerctl(name, "metadata", "xesam:title") == "Song A" }
        #expect(player.currentIndex == 0)

        // Stop.
        try Self.playerctl(name, "stop")
        try await Self.eventually("status Stopped") { try Self.playerctl(name, "status") == "Stopped" }
        #expect(player.state == .idle)
    }

    /// Calls `member` on the player's object with dbus-send; returns the printed reply.
    @discardableResult
    static func dbusSend(_ name: String, _ member: String, _ arguments: [String]) throws -> String {
        try Shell.run("dbus-send", ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.\(name)",
                                    "/org/mpris/MediaPlayer2", member] + arguments)
    }

    /// The TrackList's Tracks property: the object paths, in order.
    static func trackIDs(_ name: String) throws -> [String] {
        let reply = try dbusSend(name, "org.freedesktop.DBus.Properties.Get",
                                 ["string:org.mpris.MediaPlayer2.TrackList", "string:Tracks"])
        return reply.split(separator: "\n").compactMap { line in
            guard line.contains("object path") else { return nil }
            return line.split(separator: "\"").dropFirst().first.map(String.init)
        }
    }

    @Test func trackListShowsAndEditsTheQueue() async throws {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let base = try TestEnvironment.http()
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: try TestEnvironment.pulseSink())))
        let name = "streamplaytracks\(getpid())"
        let service = try MPRISService(player: player, name: name, artworkDirectory: TestEnvironment.temporaryPath("artwork"))
        defer {
            service.stop()
            player.stop()
        }
        let replaced = try SignalMonitor(member: "TrackListReplaced", interface: "org.mpris.MediaPlayer2.TrackList")
        defer { replaced.stop() }
        player.play(try ["a", "b", "c"].map { try MediaLocation(parsing: "\(base)/tagged/song-\($0).mp3") })
        try await player.wait(for: "playing", within: 10) { $0.state == .playing }

        let has = try Self.dbusSend(name, "org.freedesktop.DBus.Properties.Get", ["string:org.mpris.MediaPlayer2", "string:HasTrackList"])
        #expect(has.contains("boolean true"), "HasTrackList: \(has)")
        let ids = try Self.trackIDs(name)
        #expect(ids.count == 3, "Tracks: \(ids)")
        try #require(ids.count == 3)
        // The current track with its tags, the others by their file names, in the queue's order.
        try await Self.eventually("Song A's tags") {
            try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata",
                              ["array:objpath:" + ids.joined(separator: ",")]).contains("Song A")
        }
        let metadata = try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata",
                                         ["array:objpath:" + ids.joined(separator: ",")])
        let songA = try #require(metadata.range(of: "Song A")), songB = try #require(metadata.range(of: "song-b.mp3"))
        let songC = try #require(metadata.range(of: "song-c.mp3"))
        #expect(songA.lowerBound < songB.lowerBound && songB.lowerBound < songC.lowerBound)

        // GoTo plays a track; RemoveTrack and AddTrack edit the queue.
        try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.GoTo", ["objpath:\(ids[2])"])
        try await Self.eventually("Song C") { try Self.playerctl(name, "metadata", "xesam:title") == "Song C" }
        try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.RemoveTrack", ["objpath:\(ids[0])"])
        try await Self.eventually("the first track removed") { try Self.trackIDs(name) == [ids[1], ids[2]] }
        try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.AddTrack",
                          ["string:\(base)/tagged/song-a.mp3", "objpath:\(ids[2])", "boolean:false"])
        try await Self.eventually("a track added at the end") { try Self.trackIDs(name).count == 3 }
        let added = try #require(try Self.trackIDs(name).last)
        #expect(try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata", ["array:objpath:\(added)"])
            .contains("\(base)/tagged/song-a.mp3"))
        #expect(player.currentIndex == 1, "Song C plays on, now second")
        #expect(throws: Shell.Failure.self) {
            try Self.dbusSend(name, "org.mpris.MediaPlayer2.TrackList.GoTo", ["objpath:/org/streamplay/track/999999"])
        }
        try await Self.eventually("TrackListReplaced signals") {
            replaced.output.components(separatedBy: "member=TrackListReplaced").count - 1 >= 2
        }
    }

    @Test func aSecondServiceTakesAnInstanceName() async throws {
        _ = try TestEnvironment.value("DBUS_SESSION_BUS_ADDRESS")
        let name = "streamplaytwice\(getpid())"
        let first = try MPRISService(player: Player(), name: name)
        defer { first.stop() }
        let second = try MPRISService(player: Player(), name: name)
        defer { second.stop() }
        #expect(first.busName == "org.mpris.MediaPlayer2.\(name)")
        #expect(second.busName == "org.mpris.MediaPlayer2.\(name).instance\(getpid())")
        let listed = try Shell.run("playerctl", ["-l"]).split(separator: "\n").map(String.init)
        #expect(listed.contains(name) && listed.contains("\(name).instance\(getpid())"))
        first.stop()
        try await Self.eventually("the first name to leave the bus") {
            !(try Shell.run("playerctl", ["-l"]).split(separator: "\n").contains { $0 == name })
        }
    }

    @Test func withoutASessionBusTheServiceSaysWhy() throws {
        // sd-bus reads the address at connect time.
        let saved = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/streamplay-no-bus", 1)
        defer {
            if let saved { setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        }
        do {
            let service = try MPRISService(player: Player())
            service.stop()
            Issue.record("published as \(service.busName) without a bus")
        } catch {
            #expect(error.code == .noSessionBus)
            #expect(error.description.contains("no D-Bus session bus"))
        }
    }
}

/// dbus-monitor watching one signal of an MPRIS interface (the Player's unless told) on the session bus.
final class SignalMonitor {
    private let process: Process
    private let path: String

    init(member: String, interface: String = "org.mpris.MediaPlayer2.Player") throws {
        path = TestEnvironment.temporaryPath("dbus-monitor.txt")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Line-buffered, so that what it saw is in the file while it runs.
        process.arguments = ["stdbuf", "-oL", "dbus-monitor", "--session",
                             "type='signal',interface='\(interface)',member='\(member)'"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        process.standardError = FileHandle.nullDevice
        try process.run()
        // dbus-monitor subscribes asynchronously: give it a moment before anything is emitted.
        Thread.sleep(forTimeInterval: 0.3)
    }

    var output: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    func stop() {
        // SIGKILL, then a bounded wait: dbus-monitor outlived a SIGTERM here, and
        // waitUntilExit can hang when called from a task.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try? FileManager.default.removeItem(atPath: path)
    }
}
