import Foundation
import Synchronization
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// An MP3's ID3v1 tag at its end: its names are reported (an ID3v2 tag's win), read from a file
/// or by one small Range request, and its 128 bytes are never decoded as audio.
@Suite("ID3v1 tags", .serialized, .needsTestServers)
struct ID3v1Tests {
    static let audioName = "cbr-44k-stereo-short.mp3"

    /// An ID3v1.1 tag: title, artist, album, year, comment, track 5, genre.
    static func id3v1() -> Data {
        func field(_ text: String, _ length: Int) -> Data {
            Data((Array(text.utf8) + [UInt8](repeating: 0, count: length)).prefix(length))
        }
        var tag = Data("TAG".utf8) + field("V1 Title", 30) + field("V1 Artist", 30) + field("V1 Album", 30)
        tag += Data("2001".utf8) + field("comment", 28) + Data([0, 5, 12])
        return tag
    }

    /// An ID3v2.3 tag with only a title frame.
    static func id3v2Title(_ title: String) -> Data {
        let body = Data([0]) + Data(title.utf8)
        let frame = Data("TIT2".utf8) + withUnsafeBytes(of: UInt32(body.count).bigEndian) { Data($0) } + Data([0, 0]) + body
        let size = frame.count
        return Data("ID3".utf8) + Data([3, 0, 0, 0, 0, UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)]) + frame
    }

    /// Writes `prefix + audio + ID3v1` into the media folder under a fresh name; returns the name.
    static func write(prefix: Data = Data(), tagged: Bool = true) throws -> String {
        let media = try TestEnvironment.media()
        let name = "id3v1-\(UUID().uuidString.prefix(8)).mp3"
        let audio = try Data(contentsOf: URL(fileURLWithPath: "\(media)/\(audioName)"))
        try (prefix + audio + (tagged ? id3v1() : Data())).write(to: URL(fileURLWithPath: "\(media)/\(name)"))
        return name
    }

    static func metadata(_ played: WAVPlay) -> [StreamMetadata] {
        played.events.compactMap { if case .metadata(let names) = $0 { names } else { nil } }
    }

    @Test("from a file: the names are reported once, and the audio is exactly the untagged file's")
    func fromFile() async throws {
        let name = try Self.write()
        let media = try TestEnvironment.media()
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        let played = try await playToWAV("\(media)/\(name)")
        #expect(played.state == .ended)
        #expect(Self.metadata(played) == [StreamMetadata(title: "V1 Title", artist: "V1 Artist", album: "V1 Album", trackNumber: 5)])
        let reference = try ReferenceAudio(Self.audioName)
        #expect(played.samples.count == reference.samples.count, "\(played.samples.count) samples, untagged \(reference.samples.count)")
        #expect(SampleDifference.between(played.samples, reference.samples) == nil, "the tag's bytes changed the audio")
    }

    @Test("over HTTP: one Range request for the last bytes, no more; ID3v2 wins where both name a field")
    func overHTTP() async throws {
        let name = try Self.write(prefix: Self.id3v2Title("V2 Title"))
        let media = try TestEnvironment.media()
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        let tailRange = try Self.tailRange(of: name)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(name)")
        #expect(played.state == .ended)
        #expect(Self.metadata(played) == [StreamMetadata(title: "V2 Title", artist: "V1 Artist", album: "V1 Album", trackNumber: 5)])
        #expect(SampleDifference.between(played.samples, (try ReferenceAudio(Self.audioName)).samples) == nil, "the audio differs from the untagged file's")
        let requests = try Self.logLines(for: "/\(name)")
        let tail = requests.filter { $0.range == tailRange }
        #expect(tail.count == 1 && tail.first?.status == 206 && tail.first?.sent == ID3v1TagReader.trailerSize,
                "no single small Range request for the tag: \(requests)")
        #expect(requests.count == 2, "\(requests)")
    }

    @Test("over HTTP: the tag's Range request is sent only once the first audio is in the sink")
    func rangeRequestWaitsForFirstAudio() async throws {
        let name = try Self.write()
        let media = try TestEnvironment.media()
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        try await Self.expectTagRequestAfterFirstAudio(
            playing: "\(try TestEnvironment.http())/\(name)", tagged: name,
            sentEarly: "the tag's Range request was sent before the first audio reached the sink")
    }

    @Test("over HTTP: a play that fails before its first audio reaches the sink sends no Range request for the tag")
    func failedPlaySendsNoRangeRequest() async throws {
        let name = try Self.write()
        let media = try TestEnvironment.media()
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        let sink = OpenRefusal(RecordingSink())
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        defer { player.stop() }
        player.play("\(try TestEnvironment.http())/\(name)")
        let final = try await player.finish(within: 30)
        guard case .failed(let error) = final else {
            Issue.record("the play did not fail: \(final)")
            return
        }
        #expect(error.code == .outputFailed, "\(error)")
        #expect(sink.refusals == 1, "the sink was not asked to open, so the test proves nothing")
        // nginx logs a request when it ends: the play's own shows first (it was cut at the
        // failure), then time for a request sent at the failure to show too.
        let deadline = ContinuousClock.now + .seconds(5)
        while try Self.logLines(for: "/\(name)").isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        let tailRange = try Self.tailRange(of: name)
        let requests = try Self.logLines(for: "/\(name)")
        #expect(!requests.isEmpty, "nginx logged no request for the play")
        #expect(!requests.contains { $0.range == tailRange }, "the tag's Range request was sent: \(requests)")
    }

    @Test("over HTTP: a playlist's entry after one that failed waits for its own first audio, then reports its ID3v1 names")
    func playlistEntryAfterFailure() async throws {
        let name = try Self.write()
        let media = try TestEnvironment.media()
        let list = "list-\(UUID().uuidString.prefix(8)).m3u"
        try "#EXTM3U\n\(try TestEnvironment.http())/status/404\n\(name)\n"
            .write(toFile: "\(media)/\(list)", atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: "\(media)/\(name)")
            try? FileManager.default.removeItem(atPath: "\(media)/\(list)")
        }
        // The first entry writes nothing, so the sink's first write is the second entry's.
        try await Self.expectTagRequestAfterFirstAudio(
            playing: "\(try TestEnvironment.http())/\(list)", tagged: name,
            sentEarly: "the second entry's Range request was sent before its first audio reached the sink")
    }

    @Test("a server that refuses ranges: no ID3v1, nothing downloaded twice, the audio still exact")
    func serverWithoutRanges() async throws {
        let name = try Self.write()
        let media = try TestEnvironment.media()
        defer { try? FileManager.default.removeItem(atPath: "\(media)/\(name)") }
        let played = try await playToWAV("\(try TestEnvironment.http())/norange/\(name)")
        #expect(played.state == .ended)
        #expect(Self.metadata(played).isEmpty, "\(Self.metadata(played))")
        #expect(SampleDifference.between(played.samples, (try ReferenceAudio(Self.audioName)).samples) == nil)
        let requests = try Self.logLines(for: "/norange/\(name)")
        #expect(requests.count == 1, "\(requests)")
    }

    @Test("the same audio with and without the tag decodes to the same samples, to the last one")
    func tagIsNotAudio() async throws {
        let tagged = try Self.write()
        let plain = try Self.write(tagged: false)
        let media = try TestEnvironment.media()
        defer {
            try? FileManager.default.removeItem(atPath: "\(media)/\(tagged)")
            try? FileManager.default.removeItem(atPath: "\(media)/\(plain)")
        }
        let withTag = try await playToWAV("\(try TestEnvironment.http())/\(tagged)")
        let without = try await playToWAV("\(try TestEnvironment.http())/\(plain)")
        #expect(withTag.state == .ended && without.state == .ended)
        #expect(withTag.samples.count == without.samples.count)
        #expect(SampleDifference.between(withTag.samples.suffix(4096), without.samples.suffix(4096)) == nil, "the end of the tagged file decodes otherwise")
        #expect(SampleDifference.between(withTag.samples, without.samples) == nil)
    }

    /// Plays `url` to a sink whose first write is held, and expects `tagged`'s ID3v1 Range
    /// request not to have been sent during that hold (else the failure says `sentEarly`), to
    /// be sent exactly once after it, and its names to be reported once.
    static func expectTagRequestAfterFirstAudio(playing url: String, tagged name: String, sentEarly: Comment,
                                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let tailRange = try tailRange(of: name)
        // The first write is held long enough for a request sent as the sink opened to be
        // answered and logged; then the log is read.
        let sink = FirstWriteHold(RecordingSink(), hold: 0.3) {
            try logLines(for: "/\(name)").contains { $0.range == tailRange }
        }
        let player = Player(configuration: PlayerConfiguration(output: .custom { sink }))
        defer { player.stop() }
        let log = EventLog(player)
        player.play(url)
        #expect(try await player.finish(within: 30) == .ended, sourceLocation: sourceLocation)
        try await log.catchUp(until: .ended)
        let seenDuringFirstWrite = try #require(sink.checked, "the sink was never written", sourceLocation: sourceLocation).get()
        #expect(!seenDuringFirstWrite, sentEarly, sourceLocation: sourceLocation)
        #expect(try logLines(for: "/\(name)").filter { $0.range == tailRange }.count == 1, sourceLocation: sourceLocation)
        let names = log.all.compactMap { if case .metadata(let names) = $0 { names } else { nil } }
        #expect(names == [StreamMetadata(title: "V1 Title", artist: "V1 Artist", album: "V1 Album", trackNumber: 5)],
                sourceLocation: sourceLocation)
    }

    /// The `Range` header of the request for the last ``ID3v1TagReader/trailerSize`` bytes of
    /// `name` in the media directory.
    static func tailRange(of name: String) throws -> String {
        let path = "\(try TestEnvironment.media())/\(name)"
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        return "bytes=\(size - ID3v1TagReader.trailerSize)-\(size - 1)"
    }

    /// nginx's log lines for `uri`: status, Range header and body bytes sent.
    static func logLines(for uri: String) throws -> [(status: Int, range: String, sent: Int)] {
        let log = try String(contentsOfFile: try TestEnvironment.accessLog(), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5, fields[0] == uri else { return nil }
            return (Int(fields[1]) ?? 0, fields[2], Int(fields[3]) ?? -1)
        }
    }
}

/// A sink whose first write waits for `hold` seconds, then runs `check` (once) before it goes on.
private final class FirstWriteHold: ForwardingSink {
    let inner: any AudioSink
    private let hold: Double
    private let check: @Sendable () throws -> Bool
    private let result = Mutex<Result<Bool, any Error>?>(nil)

    init(_ inner: any AudioSink, hold: Double, check: @escaping @Sendable () throws -> Bool) {
        self.inner = inner
        self.hold = hold
        self.check = check
    }

    /// What `check` said (or threw) during the first write; `nil` before it.
    var checked: Result<Bool, any Error>? { result.withEngineLock { $0 } }

    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        if checked == nil {
            Thread.sleep(forTimeInterval: hold)
            let seen = Result { try check() }
            result.withEngineLock { $0 = seen }
        }
        return try inner.write(pcm)
    }
}

/// A sink that refuses to open, with ``PlayerError/outputFailed(reason:)``, and counts the times.
private final class OpenRefusal: ForwardingSink {
    let inner: any AudioSink
    private let count = Mutex(0)

    init(_ inner: any AudioSink) {
        self.inner = inner
    }

    /// The times `open` was called.
    var refusals: Int { count.withEngineLock { $0 } }

    func open(format: AudioFormat) throws(PlayerError) {
        count.withEngineLock { $0 += 1 }
        throw .outputFailed(reason: "this test's sink refuses to open")
    }
}
