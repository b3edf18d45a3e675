import StreamPlay
import Synchronization
import StreamPlayTesting
import Testing

/// A whole play through `Player` (input, decoder, queue) with the network replaced by a
/// `ScriptedMediaServer`: the input's real recovery meets each fault, and the PCM that reaches
/// the `RecordingSink` is compared with a play of the same bytes without faults.
@Suite("Scripted input: the player's recovery without servers")
struct ScriptedInputTests {
    let url = ScriptedPlay.url
    let track = ScriptedPlay.track

    @Test("a clean MP3 plays to its end, one request, all of its audio")
    func cleanPlay() async throws {
        try #require(track.count > 70_000, "the test track is missing")
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(play.formats == [AudioFormat(sampleRate: 22_050, channels: 1)])
        // Twenty seconds of mono audio, and lame's delay and padding (under two frames' worth).
        #expect(abs(play.samples.count - 20 * 22_050) < 2 * 1152, "\(play.samples.count) samples")
        #expect(play.samples.contains { abs(Int($0)) > 8_000 }, "the sweep decoded to silence")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil])
        // Served again, it decodes to the same samples: the reference the other tests use.
        let again = try await ScriptedPlay.reference()
        #expect(SampleDifference.between(again.samples, play.samples) == nil)
    }

    @Test("a connection cut at byte N is resumed with a Range request at N, and no audio is lost")
    func cutIsResumed() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 12_345))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 12_345])
        #expect(play.samples.count == reference.samples.count)
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a connection cut twice, once before any byte of a resumed request, still loses nothing")
    func repeatedCuts() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 5_000), .cut(atByte: 5_000), .cut(atByte: 20_001))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 5_000, 5_000, 20_001])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("503 with Retry-After: the retry waits that long, then the track plays whole")
    func retryAfterIsHonoured() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .status(503, retryAfter: 1))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        let requests = ScriptedPlay.requestsWithinTrack(server)
        try #require(requests.count == 2, "\(requests)")
        #expect(requests[1].receivedAt - requests[0].receivedAt >= .seconds(1))
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a Retry-After longer than the policy allows fails the play with the status")
    func tooLongRetryAfterFails() async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .status(503, retryAfter: 60))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state == .failed(.httpStatus(code: 503, url: "https://media.test/sweep.mp3")), "\(play.state)")
        #expect(server.requests.count == 1)
    }

    @Test("403 after a cut: the URL refresher renews the URL, and the play goes on from the cut")
    func expiredURLIsRenewed() async throws {
        let reference = try await ScriptedPlay.reference()
        let fresh = "https://media.test/sweep.mp3?signature=fresh"
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.serve(track, at: fresh)
        server.script(url, .cut(atByte: 9_000), .status(403))
        let renewed = RenewalLog()
        let play = try await ScriptedPlay.play(server, urlRefresher: { expired in
            renewed.record(expired)
            return fresh
        })
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(renewed.urls == [url])
        let requests = ScriptedPlay.requestsWithinTrack(server)
        #expect(requests.map(\.url) == [url, url, fresh])
        #expect(requests.map(\.rangeStart) == [nil, 9_000, 9_000])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a seek while the refresher is asked for a fresh URL is carried out at once, not after the refresher")
    func seekDuringRenewal() async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        // 40 KB of the 80 KB track, then the reconnect is refused as expired.
        server.script(url, .cut(atByte: 40_000), .status(403))
        let renewed = RenewalLog()
        let running = ScriptedPlay.start(server, urlRefresher: { expired in
            renewed.record(expired)
            // A refresher that does not answer (a service that hangs): only a command ends the wait.
            try await Task.sleep(for: .seconds(3600))
            return expired
        }, configure: { $0.urlRefreshTimeout = 300 })
        try #require(await eventually(timeout: .seconds(10)) { renewed.urls.count == 1 })
        let asked = ContinuousClock.now
        running.player.seek(to: 2)
        let play = try await running.finish(timeout: 10)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ContinuousClock.now - asked < .seconds(5), "the seek waited for the refresher")
        let requests = ScriptedPlay.requestsWithinTrack(server)
        // The seek's request takes the same URL (a new 403 would ask the refresher again).
        #expect(requests.map(\.url) == [url, url, url], "\(requests)")
        #expect(requests.first.map { $0.rangeStart == nil } == true && requests.dropFirst().first?.rangeStart == 40_000)
        #expect(renewed.urls == [url])
    }

    @Test("403 with no refresher fails the play with the status")
    func expiredURLWithoutRefresherFails() async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .status(403))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state == .failed(.httpStatus(code: 403, url: "https://media.test/sweep.mp3")), "\(play.state)")
    }

    @Test("a Content-Length longer than the body: the input resumes at the body's end, the 416 ends it, nothing lost")
    func lyingLengthEndsCleanly() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .lyingLength(track.count + 10_000))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        // The reconnect asks from the first byte not received, which is past the end: the
        // 416 means every byte had arrived (the decoder may ask past the end first, see
        // ScriptedPlay.requestsWithinTrack).
        let requests = server.requests
        #expect(requests.first?.rangeStart == nil)
        #expect(requests.count >= 2 && requests.dropFirst().allSatisfy { ($0.rangeStart ?? 0) >= track.count }, "\(requests)")
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a stall: the stall timeout ends the transfer, and a Range request resumes where it stopped")
    func stallIsResumed() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .stall(atByte: 16_000))
        // Long enough that no pause of a loaded machine (or a sanitizer's) reads as a stall
        // anywhere else in the play, short enough to keep the test quick.
        let play = try await ScriptedPlay.play(server, configure: { $0.stallTimeout = 1.5 })
        #expect(play.state.hasEnded, "\(play.state)")
        let requests = ScriptedPlay.requestsWithinTrack(server)
        try #require(requests.count == 2, "\(requests)")
        #expect(requests[1].rangeStart == 16_000)
        #expect(requests[1].receivedAt - requests[0].receivedAt >= .milliseconds(1_500))
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a server that ignores Range after a cut: the input skips what it had, and nothing is lost or repeated")
    func ignoredRangeIsSkipped() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 7_777), .ignoringRange)
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 7_777])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("Range answers capped short of the end (Content-Range says so): the rest is asked for where each stopped, nothing lost")
    func cappedRanges() async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 10_000), .cappedRange(bytes: 20_000), .cappedRange(bytes: 20_000))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 10_000, 30_000, 50_000])
        #expect(SampleDifference.between(play.samples, (try await ScriptedPlay.reference()).samples) == nil)
    }

    @Test("a Range answer that begins before the byte asked for: the bytes before it are skipped, nothing repeated")
    func rangeAnsweredFromEarlier() async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 10_000), .rangeAnswered(9_000...(track.count - 1)))
        let play = try await ScriptedPlay.play(server)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 10_000])
        #expect(SampleDifference.between(play.samples, (try await ScriptedPlay.reference()).samples) == nil)
    }

    @Test("a Range answer that begins after the byte asked for, or ends before it, fails the play by name: bytes are missing",
          arguments: [11_000...80_000, 0...511])
    func rangeAnsweredWithoutTheByte(answered: ClosedRange<Int>) async throws {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        server.script(url, .cut(atByte: 10_000), .rangeAnswered(answered))
        let play = try await ScriptedPlay.play(server)
        let sent = "\(answered.lowerBound)-\(answered.upperBound)"
        #expect(play.state == .failed(.transferFailed(url: url, reason: "the server answered a Range request from byte 10000 with bytes \(sent)")),
                "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.rangeStart) == [nil, 10_000], "not retried: the server would answer the same")
    }

    @Test("starting at 18 s, past the bytes received: a Range request at 18 s of bytes, and the audio from there")
    func startTimeIsARangeRequest() async throws {
        let reference = try await ScriptedPlay.reference()
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        // The first answer holds back everything after 60 000 bytes (15 s), so the seek
        // cannot be met by reading on: it needs a request of its own.
        server.script(url, .stall(atByte: 60_000))
        let play = try await ScriptedPlay.play(server, startingAt: 18)
        #expect(play.state.hasEnded, "\(play.state)")
        // Not a request past the end, which the decoder may make as the track ends (see
        // ScriptedPlay.requestsWithinTrack).
        let ranges = ScriptedPlay.requestsWithinTrack(server).compactMap(\.rangeStart)
        // 32 kbit/s: 4 000 bytes a second, so 18 s is 8 000 bytes before the end. The decoder
        // starts a few frames early (the bit reservoir, its own lead-in), never later.
        let target = track.count - 2 * 4_000
        #expect(ranges.count == 1 && ranges.allSatisfy { $0 <= target && $0 > target - 2_000 },
                "Range requests at \(ranges), expected shortly before \(target)")
        // The audio heard is the reference's last two seconds, from the frame the seek lands on.
        let remaining = reference.samples.count - 18 * 22_050
        #expect(abs(play.samples.count - remaining) <= 576, "\(play.samples.count) samples, expected about \(remaining)")
        // Decoded from a fresh decoder state, samples may differ by a rounding step.
        let heard = play.samples.suffix(40_000), expectedTail = reference.samples.suffix(heard.count)
        #expect(heard.count == 40_000)
        #expect(zip(heard, expectedTail).allSatisfy { abs(Int($0) - Int($1)) <= 2 })
    }
}

/// The URLs a refresher was asked to renew.
final class RenewalLog: Sendable {
    private let list = Mutex<[String]>([])
    func record(_ url: String) { list.withLock { $0.append(url) } }
    var urls: [String] { list.withLock { $0 } }
}
