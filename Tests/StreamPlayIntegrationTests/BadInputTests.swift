import Foundation
import Testing
@testable import StreamPlay

/// Each bad input ends in its own typed error, quickly: no crash, no hang, no silent success.
@Suite("Bad input", .needsTestServers)
struct BadInputTests {
    enum Expected: Sendable {
        case httpStatus(Int), notAudio, emptyStream, tooManyRedirects, timedOut, connectionFailed
        case hostNotFound, tlsFailure, fileNotFound, fileUnreadable, unsupportedScheme, invalidLocation
        case decodingFailed, drmProtected
        /// Refused as a format the engine cannot play, named with this text.
        case unsupportedFormat(String)

        func matches(_ error: PlayerError) -> Bool {
            switch self {
            case .httpStatus(let code): error.code == .httpStatus && error.status == code
            case .unsupportedFormat(let name): error.code == .unsupportedFormat && error.format?.hasPrefix(name) == true
            case .notAudio: error.code == .notAudio
            case .emptyStream: error.code == .emptyStream
            case .tooManyRedirects: error.code == .tooManyRedirects
            case .timedOut: error.code == .timedOut
            case .connectionFailed: error.code == .connectionFailed
            case .hostNotFound: error.code == .hostNotFound
            case .tlsFailure: error.code == .tlsFailure
            case .fileNotFound: error.code == .fileNotFound
            case .fileUnreadable: error.code == .fileUnreadable
            case .unsupportedScheme: error.code == .unsupportedScheme
            case .invalidLocation: error.code == .invalidLocation
            case .decodingFailed: error.code == .decodingFailed
            case .drmProtected: error.code == .drmProtected
            }
        }
    }

    /// (location relative to a base, expected error); `http:` and friends are filled in.
    static let cases: [(String, Expected)] = [
        ("http:/status/404", .httpStatus(404)),
        ("http:/status/403", .httpStatus(403)),
        ("http:/status/500", .httpStatus(500)),
        ("http:/status/503", .httpStatus(503)),
        ("http:/asaudio/page.html", .notAudio),
        ("http:/page.html", .notAudio),
        ("http:/random.bin", .notAudio),
        ("http:/not-mp3.mp3", .notAudio),
        ("http:/empty.mp3", .emptyStream),
        // Other formats play through FFmpeg (FormatTests); damaged ones fail by name.
        ("http:/formats/truncated.m4a", .notAudio),
        ("http:/formats/no-moov.m4a", .notAudio),
        ("http:/formats/truncated-media.m4a", .decodingFailed),
        ("media:/formats/truncated.flac", .decodingFailed),
        // Ogg cut mid-page (Vorbis, Opus), and cut with its last page kept: its granule position
        // promises audio that is not there.
        ("media:/formats/truncated.ogg", .decodingFailed),
        ("http:/formats/truncated.opus", .decodingFailed),
        ("http:/formats/truncated-gap.ogg", .decodingFailed),
        ("http:/formats/encrypted.m4a", .drmProtected),
        ("http:/formats/unknown-codec.wav", .unsupportedFormat("WAV with audio of unknown codec")),
        ("http:/hls/missing-init/index.m3u8", .httpStatus(404)),
        ("http:/loop", .tooManyRedirects),
        ("blackhole:/never.mp3", .timedOut),
        ("refused:/x.mp3", .connectionFailed),
        ("http://no-such-host.invalid/x.mp3", .hostNotFound),
        ("https-untrusted:/cbr-44k-mono.mp3", .tlsFailure),
        ("media:/no-such-file.mp3", .fileNotFound),
        ("media:/", .fileUnreadable),
        ("ftp://127.0.0.1/x.mp3", .unsupportedScheme),
        ("http://", .invalidLocation),
    ]

    static func resolve(_ location: String) throws -> String {
        let bases = [
            "http:": try TestEnvironment.http(), "blackhole:": try TestEnvironment.blackHole(),
            "refused:": try TestEnvironment.refused(), "https-untrusted:": try TestEnvironment.https(),
            "media:": try TestEnvironment.media(),
        ]
        for (prefix, base) in bases where location.hasPrefix(prefix) && !location.hasPrefix("http://") {
            return base + location.dropFirst(prefix.count)
        }
        return location
    }

    @Test("gives its typed error within a bounded time", arguments: cases)
    func typedError(location: String, expected: Expected) async throws {
        var configuration = PlayerConfiguration(output: .null)
        configuration.stallTimeout = 1
        configuration.connectTimeout = 2
        let player = Player(configuration: configuration)
        let url = try Self.resolve(location)
        let started = ContinuousClock.now
        player.play(url)
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final else {
            Issue.record("\(url): expected \(expected), ended in \(final)")
            return
        }
        #expect(expected.matches(error), "\(url): expected \(expected), got \(error)")
        #expect(ContinuousClock.now - started < .seconds(5), "\(url) took too long to fail")
        #expect(!error.description.isEmpty)
        player.stop()
        #expect(engineThreadNames().isEmpty)
    }

    @Test("redirects are followed, with our User-Agent")
    func redirects() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let tag = UUID().uuidString.prefix(8)
        player.play("\(try TestEnvironment.http())/redirect2/cbr-44k-mono.mp3?ua-\(tag)")
        #expect(try await player.finish(within: 10) == .ended)
        player.stop()
        let requests = try accessLogEntries(for: "/cbr-44k-mono.mp3?ua-\(tag)")
        // One download; a Range request for the last bytes (an ID3v1 tag) may follow it.
        #expect(requests.filter { $0.range.isEmpty || $0.range == "-" }.count == 1, "\(requests)")
        #expect(requests.allSatisfy { $0.userAgent.hasPrefix("StreamPlay/") }, "\(requests)")
    }

    @Test("credentials in a URL never reach the error")
    func redaction() async throws {
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let base = try TestEnvironment.http().replacingOccurrences(of: "http://", with: "http://user:hunter2@")
        player.play("\(base)/status/403?signature=s3cr3t&token=t0k3n")
        let final = try await player.finish(within: 10)
        guard case .failed(let error) = final else {
            Issue.record("expected a failure, got \(final)")
            return
        }
        for secret in ["hunter2", "s3cr3t", "t0k3n", "user:"] {
            #expect(!error.description.contains(secret), "\(error) shows \(secret)")
        }
        player.stop()
    }

    @Test("a trusted certificate authority makes HTTPS play")
    func trustedHTTPS() async throws {
        var configuration = PlayerConfiguration(output: .null)
        configuration.caCertificatesPath = try TestEnvironment.caFile()
        let player = Player(configuration: configuration)
        player.play("\(try TestEnvironment.https())/cbr-44k-mono.mp3")
        #expect(try await player.finish(within: 10) == .ended)
        player.stop()
    }
}

/// Parsing of what `play(_:)` is given.
@Suite("Locations")
struct MediaLocationTests {
    @Test func parsing() throws {
        #expect(try MediaLocation(parsing: "http://a.example/x.mp3") == .remote("http://a.example/x.mp3"))
        #expect(try MediaLocation(parsing: "HTTPS://a.example/x.mp3") == .remote("HTTPS://a.example/x.mp3"))
        #expect(try MediaLocation(parsing: "file:///tmp/a%20b.mp3") == .file("/tmp/a b.mp3"))
        #expect(try MediaLocation(parsing: "music/a.mp3") == .file("music/a.mp3"))
        #expect(throws: PlayerError.unsupportedScheme("rtsp")) { try MediaLocation(parsing: "rtsp://a/b") }
        #expect(throws: PlayerError.self) { try MediaLocation(parsing: "  ") }
    }

    @Test func redactedDescription() throws {
        let location = try MediaLocation(parsing: "https://user:pw@cdn.example/a.mp3?sig=abc#frag")
        #expect(location.description == "https://cdn.example/a.mp3")
    }
}
