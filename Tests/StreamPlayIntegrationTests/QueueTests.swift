import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// The play queue: gapless joins checked sample for sample on a continuous signal cut into
/// LAME-tagged MP3s, format switches, skipping failures, and the queue commands.
@Suite("Play queue", .serialized, .needsTestServers)
struct QueueTests {
    static let album = ["album/01.mp3", "album/02.mp3", "album/03.mp3"]

    static func joined(_ names: [String]) throws -> [Int16] {
        try ReferenceAudio(joining: names).samples
    }

    static func currentItems(_ log: EventLog) -> [Int] {
        log.all.compactMap { if case .currentItemChanged(let index, _) = $0 { index } else { nil } }
    }

    @Test("an album plays with no gap: the joins equal the tracks' reference decodes end to end",
          arguments: ["file", "http"])
    func gaplessAlbum(source: String) async throws {
        let base = source == "file" ? try TestEnvironment.media() : try TestEnvironment.http()
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        let log = EventLog(player)
        player.play(try Self.album.map { try MediaLocation(parsing: "\(base)/\($0)") })
        #expect(try await player.finish(within: 60) == .ended)
        let expected = try Self.joined(Self.album)
        let output = try PCM.wavSamples(path: path).samples
        #expect(output.count == expected.count)
        #expect(output == expected, "the joined output differs from the concatenated references")
        try await log.catchUp(until: .ended)
        #expect(Self.currentItems(log) == [0, 1, 2])
        // The first state is the one the event stream starts with (idle).
        #expect(log.states.dropFirst().filter(\.isFinal) == [.ended], "one final state for the whole queue: \(log.states)")
        player.stop()
        #expect(engineThreadNames().isEmpty)
    }

    @Test("through PulseAudio: the monitor of the sink records the album's joins sample for sample")
    func gaplessThroughPulseAudio() async throws {
        _ = try TestEnvironment.pulseServer()
        let reference = try ReferenceAudio(joining: Self.album)
        let sink = try ExtraNullSink(sampleRate: reference.sampleRate, channels: reference.channels)
        let recorder = MonitorRecorder(sink: sink.name, sampleRate: reference.sampleRate, channels: reference.channels)
        try await recorder.start()
        let player = Player(configuration: PlayerConfiguration(output: .pulseAudio(sink: sink.name)))
        let base = try TestEnvironment.http()
        player.play(try Self.album.map { try MediaLocation(parsing: "\(base)/\($0)") })
        #expect(try await player.finish(within: 60) == .ended)
        player.stop()
        try await Task.sleep(for: .milliseconds(300))
        let recording = try await recorder.stop()
        let comparison = MonitorComparison(recording: recording, reference: reference)
        #expect(comparison.aligned, "the album was not found in the recording")
        #expect(comparison.complete, "the recording ends before the album does")
        #expect(comparison.mismatchedFrames == 0, "\(comparison.mismatchedFrames) frames differ from the joined references (\(comparison.diagnosis))")
        #expect(comparison.silentLead <= 4410, "\(comparison.silentLead) frames lost at the start")
    }

    @Test("through PulseAudio with a 1 s buffer: the next item is announced when its first audio is heard, and the position runs on to the end of the one heard")
    func handOffAnnouncedWhenHeard() async throws {
        _ = try TestEnvironment.pulseServer()
        let names = ["album/01.mp3", "album/02.mp3"]
        let first = try ReferenceAudio(names[0])
        let firstSeconds = Double(first.frameCount) / Double(first.sampleRate)
        let sink = try ExtraNullSink(sampleRate: first.sampleRate, channels: first.channels)
        var configuration = PlayerConfiguration(output: .pulseAudio(sink: sink.name))
        configuration.targetLatency = 1
        let player = Player(configuration: configuration)
        let log = EventLog(player)
        let base = try TestEnvironment.http()
        player.play(try names.map { try MediaLocation(parsing: "\(base)/\($0)") })
        // What a player's display would show, every 10 ms through the join. The properties are
        // read one after the other: a reading that the switch to the next item came in the
        // middle of (the index read before it differs from the index read after) is not kept.
        var shown: [(index: Int?, position: Double?, duration: Double?, announced: Int)] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while !player.state.isFinal, ContinuousClock.now < deadline {
            let reading = (player.currentIndex, player.position, player.duration, Self.currentItems(log).count)
            if player.currentIndex == reading.0 { shown.append(reading) }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(player.state == .ended)
        player.stop()
        let lastOfFirst = try #require(shown.last { $0.index == 0 && $0.position != nil })
        let firstOfNext = try #require(shown.first { $0.index == 1 })
        // Announced at write time, the first item would be left with up to the whole second
        // of its tail still to play.
        #expect(lastOfFirst.position! > firstSeconds - 0.1,
                "the first item was left at \(lastOfFirst.position!) s of \(firstSeconds) s")
        #expect(lastOfFirst.duration.map { abs($0 - firstSeconds) < 0.05 } == true, "\(String(describing: lastOfFirst.duration))")
        #expect((firstOfNext.position ?? 1) < 0.1, "the next item was announced at \(String(describing: firstOfNext.position)) s")
        #expect(firstOfNext.duration.map { abs($0 - firstSeconds) > 0.05 } != false)
        // The event and the properties move together, once.
        #expect(shown.filter { $0.index == 0 }.allSatisfy { $0.announced <= 1 })
        #expect(Self.currentItems(log) == [0, 1])
    }

    @Test("the next track is opened and decoded before the current one ends (the hand-over is gapless)")
    func preloaded() async throws {
        let sink = RecordingSink(pacedAhead: 0.2)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        let base = try TestEnvironment.http()
        player.play(try ["album/02.mp3", "album/03.mp3"].map { try MediaLocation(parsing: "\(base)/\($0)") })
        #expect(try await player.finish(within: 60) == .ended)
        #expect(SampleDifference.between(sink.samples, (try Self.joined(["album/02.mp3", "album/03.mp3"]))) == nil)
        // Real time at the join: a state change would mean the second track had to buffer.
        let states = log.states.dropFirst()  // the idle the event stream starts with
        #expect(states.filter { $0 == .connecting }.count == 1 && states.first == .connecting, "\(log.states)")
        #expect(states.filter { $0 == .buffering }.count <= 1, "\(log.states)")
    }

    @Test("tracks of another rate and channel count switch the output cleanly")
    func formatSwitch() async throws {
        let sink = RecordingSink()
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let media = try TestEnvironment.media()
        let names = ["album/01.mp3", "album/04-48k.mp3", "album/02.mp3"]
        player.play(try names.map { try MediaLocation(parsing: "\(media)/\($0)") })
        #expect(try await player.finish(within: 60) == .ended)
        let parts = sink.parts
        try #require(parts.count == 3, "formats: \(parts.map(\.format))")
        for (part, name) in zip(parts, names) {
            let reference = try ReferenceAudio(name)
            #expect(part.format == AudioFormat(sampleRate: reference.sampleRate, channels: reference.channels))
            #expect(SampleDifference.between(part.samples, reference.samples) == nil, "\(name)")
        }
    }

    @Test("an item that fails is skipped: the others still join without a gap")
    func failingItemSkipped() async throws {
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        let log = EventLog(player)
        let base = try TestEnvironment.http()
        player.play(try ["album/01.mp3", "missing.mp3", "album/02.mp3"].map { try MediaLocation(parsing: "\(base)/\($0)") })
        let final = try await player.finish(within: 60)
        #expect(final == .ended, "\(log.all)")
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try Self.joined(["album/01.mp3", "album/02.mp3"]))) == nil)
        try await log.catchUp(until: final)
        let failures = log.all.compactMap { if case .itemFailed(let item, let error) = $0 { (item, error) } else { nil } }
        try #require(failures.count == 1)
        #expect(failures[0].0.location.description.hasSuffix("missing.mp3"))
        #expect(failures[0].1 == .httpStatus(code: 404, url: "\(base)/missing.mp3"))
        #expect(Self.currentItems(log) == [0, 1, 2])
    }

    @Test("into one WAV file, another format fails that item with a typed error")
    func wavFormatChange() async throws {
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        let media = try TestEnvironment.media()
        player.play(try ["album/01.mp3", "album/04-48k.mp3"].map { try MediaLocation(parsing: "\(media)/\($0)") })
        guard case .failed(let error) = try await player.finish(within: 60), error.code == .outputFailed, let reason = error.reason else {
            Issue.record("expected outputFailed, got \(player.state)")
            return
        }
        #expect(reason.contains("cannot append"))
        #expect(try SampleDifference.between(PCM.wavSamples(path: path).samples, (try ReferenceAudio("album/01.mp3")).samples) == nil)
    }

    @Test("enqueue, insert, next, previous, remove and clear")
    func commands() async throws {
        let sink = RecordingSink(pacedAhead: 0.1)
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        let media = try TestEnvironment.media()
        let a = try MediaLocation(parsing: "\(media)/album/01.mp3")
        let b = try MediaLocation(parsing: "\(media)/album/02.mp3")
        let c = try MediaLocation(parsing: "\(media)/album/03.mp3")
        player.play(a)
        let itemB = player.enqueue(b)
        player.enqueue(c)
        #expect(player.queue.map(\.location) == [a, b, c])
        try await player.wait(for: "playing", within: 10) { $0.state == .playing }
        #expect(player.currentIndex == 0)

        #expect(player.next())
        try await player.wait(for: "the second item", within: 10) { $0.currentIndex == 1 && $0.state == .playing }
        #expect(player.currentItem == itemB)
        #expect(player.previous())
        try await player.wait(for: "the first item again", within: 10) { $0.currentIndex == 0 && $0.state == .playing }
        #expect(!player.previous(), "there is nothing before the first item")

        // Inserting before the current item keeps it current.
        let inserted = player.insert(c, at: 0)
        #expect(player.currentIndex == 1)
        #expect(player.queue.first == inserted)

        // Removing the item that plays goes on with the one after it.
        player.remove(at: 1)
        try await player.wait(for: "the item after the removed one", within: 10) { $0.currentItem == itemB && $0.state == .playing }
        #expect(player.currentIndex == 1)

        player.clearQueue()
        #expect(player.queue.isEmpty)
        #expect(player.currentIndex == nil)
        #expect(player.state == .idle)
        #expect(!player.next())
        #expect(engineThreadNames().isEmpty, "clear stops the engine")
        try await log.catchUp(until: .idle)
        #expect(Self.currentItems(log) == [0, 1, 0, 1])
    }

    @Test("seeking after the last item ended plays it again from there, within the queue")
    func seekAfterEnd() async throws {
        let sink = RecordingSink()
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        let log = EventLog(player)
        let media = try TestEnvironment.media()
        player.play(try ["album/02.mp3", "album/03.mp3"].map { try MediaLocation(parsing: "\(media)/\($0)") })
        #expect(try await player.finish(within: 30) == .ended)
        player.seek(to: 1)
        try await player.wait(for: "the replay to end", within: 30) { _ in log.states.filter { $0 == .ended }.count == 2 }
        #expect(player.currentIndex == 1)
        let replayed = sink.parts.last?.samples ?? []
        let reference = try ReferenceAudio("album/03.mp3")
        #expect(Array(replayed.suffix(reference.samples.count - 44100 * 2)) == Array(reference.samples[(44100 * 2)...]),
                "the replay starts at 1 s of the last item")
        #expect(player.queue.count == 2)
    }
}
