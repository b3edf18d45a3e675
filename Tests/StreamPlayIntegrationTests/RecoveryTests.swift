import Foundation
import Synchronization
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// Streams that break are resumed where the bytes stopped, and the audio is as if nothing
/// happened. The faults come from a real server process (`scripts/fault-server.py`).
@Suite("Recovery from broken connections", .serialized, .needsTestServers)
struct RecoveryTests {
    struct FaultRequest {
        let path: String
        let range: String?
        let status: Int
        let cut: String?
    }

    /// The fault server's log lines for requests whose path (with query) is `path`, but for the
    /// engine's side request for the file's last bytes (an ID3v1 tag).
    static func requests(_ path: String) throws -> [FaultRequest] {
        let log = try String(contentsOfFile: try TestEnvironment.value("STREAMPLAY_TEST_FAULTS_LOG"), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let full = (object["path"] as? String ?? "") + ((object["query"] as? String).map { $0.isEmpty ? "" : "?\($0)" } ?? "")
            guard full == path, !isTrailingTagRange(object["range"] as? String) else { return nil }
            return FaultRequest(path: full, range: object["range"] as? String, status: object["status"] as? Int ?? 0,
                                cut: object["cut"] as? String)
        }
    }

    /// Plays `path` on the fault server into a WAV file and returns the final state and samples.
    static func play(_ path: String, configure: (inout PlayerConfiguration) -> Void = { _ in },
                     urlRefresher: (@Sendable (String) async throws -> String)? = nil) async throws -> (PlayerState, [Int16]) {
        var (configuration, file) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: file) }
        configuration.stallTimeout = 1
        configure(&configuration)
        let player = Player(configuration: configuration)
        player.play(try MediaLocation(parsing: "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))\(path)"),
                    urlRefresher: urlRefresher)
        let final = try await player.finish(within: 30)
        player.stop()
        // No audio at all leaves no file.
        let samples = FileManager.default.fileExists(atPath: file) ? try PCM.wavSamples(path: file).samples : []
        return (final, samples)
    }

    static func unique(_ path: String) -> String { "\(path)?\(UUID().uuidString.prefix(8))" }

    @Test("a dropped, reset or stalled connection resumes by Range with no sample lost or repeated",
          arguments: ["/drop-after/100000/", "/reset-after/100000/", "/stall-after/100000/30/"])
    func resumes(fault: String) async throws {
        let reference = try ReferenceAudio("vbr-44k-stereo.mp3")
        let path = Self.unique("\(fault)vbr-44k-stereo.mp3")
        let (final, samples) = try await Self.play(path)
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil, "audio differs after the reconnect")
        let requests = try Self.requests(path)
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.last?.range == "bytes=100000-", "resumed from the first byte not received: \(requests)")
    }

    @Test("a connection that breaks again and again still delivers the whole track")
    func dropsEveryTime() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let path = Self.unique("/drop-every/65536/cbr-44k-stereo.mp3")
        let (final, samples) = try await Self.play(path)
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil)
        #expect(try Self.requests(path).count > 5)
    }

    @Test("garbage in the middle of a stream: the decoder resyncs past it and plays on to the end")
    func garbageInTheMiddle() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let (final, samples) = try await Self.play(Self.unique("/mid-garbage/cbr-44k-stereo.mp3"))
        #expect(final == .ended)
        // Everything before the garbage is exact; around it a few frames may be lost.
        let before = reference.samples.count * 35 / 100
        #expect(SampleDifference.between(Array(samples.prefix(before)), Array(reference.samples.prefix(before))) == nil)
        let lost = abs(samples.count - reference.samples.count) / 2
        #expect(lost < 1152 * 10, "\(lost) frames lost around the garbage")
    }

    @Test("an expired signed URL is refreshed through the hook and playback resumes at the same byte")
    func expiredURL() async throws {
        let reference = try ReferenceAudio("cbr-44k-mono.mp3")
        let path = Self.unique("/expire-after/40000/cbr-44k-mono.mp3")
        let fresh = "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))/plain/cbr-44k-mono.mp3?fresh-\(UUID().uuidString.prefix(8))"
        let asked = Mutex<[String]>([])
        let (final, samples) = try await Self.play(path, urlRefresher: { expired in
            asked.withEngineLock { $0.append(expired) }
            return fresh
        })
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil)
        #expect(asked.withEngineLock { $0.count } == 1)
        #expect(asked.withEngineLock { $0.first?.hasSuffix(path) } == true)
        let freshPath = String(fresh.dropFirst(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS").count))
        #expect(try Self.requests(freshPath).first?.range == "bytes=40000-")
    }

    @Test("an expired URL without a refresher fails with the status, after playing what it had")
    func expiredWithoutRefresher() async throws {
        let (final, samples) = try await Self.play(Self.unique("/gone-after/40000/cbr-44k-mono.mp3"))
        guard case .failed(let error) = final, error.status == 410 else {
            Issue.record("expected HTTP 410, got \(final)")
            return
        }
        #expect(!samples.isEmpty)
    }

    @Test("a server that answers a Range request with the whole body: the prefix is skipped")
    func rangeIgnored() async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let (final, samples) = try await Self.play(Self.unique("/range-ignored/cbr-44k-stereo.mp3"))
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil)
    }

    @Test("503 with a short Retry-After is retried once")
    func retryAfter() async throws {
        let reference = try ReferenceAudio("cbr-44k-mono.mp3")
        let path = Self.unique("/retry-after/1/cbr-44k-mono.mp3")
        let (final, samples) = try await Self.play(path)
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil)
        #expect(try Self.requests(path).map(\.status) == [503, 200])
    }

    @Test("a Content-Length that lies, short or long: the whole track, then the end", arguments: ["/lie-short/", "/lie-long/"])
    func lyingLength(fault: String) async throws {
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let (final, samples) = try await Self.play(Self.unique("\(fault)cbr-44k-stereo.mp3"))
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil)
    }

    @Test("a first connection that fails is not retried: the error comes at once")
    func noRetryOnFirstFailure() async throws {
        let started = ContinuousClock.now
        let (final, _) = try await Self.play("/status/500")
        guard case .failed(let error) = final, error.status == 500 else {
            Issue.record("expected HTTP 500, got \(final)")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
