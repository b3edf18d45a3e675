import CCurl
import Foundation
import Synchronization
import Testing
@testable import StreamPlay

/// The one libcurl driver (`CurlLoop`) and the waited-for requests on it
/// (`BlockingMediaTransfer` over `CurlMediaTransport`), against nginx on loopback. Most use a loop of their own, so that
/// its thread and transfers are the test's alone.
@Suite("Curl loop", .needsTestServers, .timeLimit(.minutes(1)))
struct CurlLoopTests {
    @Test("a stop that comes while the input waits for the loop to let go of its transfer is not slept through")
    func stopDuringRemove() async throws {
        let ring = ByteRing(capacity: 64 * 1024, wakeConsumer: {})
        let control = InputControl(notifyDecoder: {})
        let source = CurlInputSource(url: "\(try TestEnvironment.http())/slow/cbr-44k-stereo.mp3", ring: ring,
                                     control: control, configuration: PlayerConfiguration())
        source.start(at: 0, generation: 1)
        try await Task.sleep(for: .milliseconds(300))
        // Hold the shared loop's thread in a callback (what no handler may do), so that the
        // input's restart waits for the loop to let go of its transfer.
        let staller = StallingHandler()
        let stallEasy = try Self.easy("\(try TestEnvironment.http())/random.bin")
        try #require(CurlLoop.shared).add(stallEasy, handler: staller)
        try await Self.waitUntil { staller.holding.load(ordering: .acquiring) }
        source.start(at: 1000, generation: 2)
        try await Task.sleep(for: .milliseconds(150))
        // stop() signals the input's thread while it waits in remove(): with that signal spent
        // there, the thread used to sleep a quarter of a second more before it read the stop.
        let stopping = Task.detached { () -> ContinuousClock.Instant in
            source.stop()
            return .now
        }
        try await Task.sleep(for: .milliseconds(150))
        let released = ContinuousClock.now
        staller.release()
        let stopped = await stopping.value
        #expect(stopped - released < .milliseconds(200), "stop took \(stopped - released) after the loop went on")
        try await Self.waitUntil { staller.ended.load(ordering: .acquiring) }
        withExtendedLifetime(stallEasy) {}
    }

    @Test("upload progress runs off the loop's thread: a closure that waits for the loop returns")
    func uploadProgressOffTheLoop() async throws {
        let base = try TestEnvironment.http()
        let calls = ProgressCalls()
        let body = [UInt8](repeating: 7, count: 512 * 1024)
        let request = HTTPRequest(method: .post, url: "\(base)/status/404", body: .bytes(body, contentType: "application/octet-stream"))
        let response = try await CurlHTTPClient().send(request) { sent, _ in
            let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            var waited: MediaTransferEnd?
            if calls.list.withEngineLock({ $0.isEmpty }) {
                // On the loop's thread, this would wait for that very thread forever.
                waited = Self.waitFor("\(base)/random.bin").outcome.end
            }
            calls.list.withEngineLock { $0.append((thread, sent, waited)) }
        }
        #expect(response.status == 404)
        let heard = calls.list.withEngineLock { $0 }
        #expect(!heard.isEmpty)
        #expect(heard.allSatisfy { $0.thread != "sp-curl-loop" }, "\(heard.map(\.thread))")
        #expect(heard.first?.waited == .completed)
        #expect(heard.map(\.sent) == heard.map(\.sent).sorted())
    }

    @Test("a transfer whose input has a command waiting takes no byte, and goes on when it asked nothing of it")
    func commandWaitingPauses() async throws {
        let ring = ByteRing(capacity: 1 << 20, wakeConsumer: {})
        let name = "cbr-44k-stereo.mp3"
        let transfer = HTTPInputTransfer(url: "\(try TestEnvironment.http())/\(name)", offset: 0, generation: 1,
                                         ring: ring, configuration: PlayerConfiguration(), wake: ThreadSignal())
        let waiting = Flag(true)
        transfer.commandWaiting = { seen in seen == 0 && waiting.value.load(ordering: .acquiring) }
        let loop = try #require(CurlLoop())
        let control = CurlMediaTransport(configuration: PlayerConfiguration(), loop: loop)
            .startTransfer(transfer.request, receiver: transfer)
        try await Self.waitUntil { transfer.isHeldForCommand }
        try await Task.sleep(for: .milliseconds(100))
        #expect(transfer.delivered == 0 && transfer.end == nil)
        waiting.value.store(false, ordering: .releasing)
        if transfer.commandsTaken(upTo: 1) { control.resume() }
        try await Self.waitUntil { transfer.end != nil }
        #expect(transfer.end == .completed)
        let file = try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/\(name)"))
        #expect(transfer.delivered == file.count)
    }

    @Test("a cancelled transfer is handed no more bytes, even within the same curl_multi_perform")
    func cancelStopsTheBytesAtOnce() async throws {
        let loop = try #require(CurlLoop())
        let id = loop.makeID()
        let handler = RecordingHandler { _ in
            // On the loop thread, in libcurl's write callback: libcurl would go on reading.
            loop.cancel(id)
            return .take
        }
        let easy = try Self.easy("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        loop.add(easy, handler: handler, id: id)
        try await Self.waitUntil { !handler.ends.isEmpty }
        #expect(handler.dataCalls == 1)
        #expect(handler.ends == [.cancelled])
        withExtendedLifetime(easy) {}
    }

    @Test("the loop's thread outlives its last transfer for its idle time, then ends; the next starts another")
    func idleThread() async throws {
        let loop = try #require(CurlLoop())
        let url = "\(try TestEnvironment.http())/random.bin"
        for _ in 0..<3 {
            let outcome = Self.waitFor(url, loop: loop).outcome
            #expect(outcome.end == .completed && outcome.status == 200)
        }
        #expect(loop.threadState.running && loop.threadState.started == 1, "one thread for requests in a row")
        try await Task.sleep(for: .milliseconds(CurlLoop.idleTime + 300))
        #expect(!loop.threadState.running)
        let again = Self.waitFor(url, loop: loop).outcome
        #expect(again.end == .completed)
        #expect(loop.threadState.started == 2)
    }

    @Test("a handle libcurl will not add ends its transfer at once, with CURLE_FAILED_INIT")
    func addRefused() async throws {
        let loop = try #require(CurlLoop())
        let other = try #require(CurlLoop())
        let easy = try Self.easy("\(try TestEnvironment.blackHole())/x")
        let running = RecordingHandler { _ in .take }
        let id = loop.add(easy, handler: running)
        try await Task.sleep(for: .milliseconds(200))
        // The same handle again, on the same loop and on another (whose multi handle refuses
        // a handle that is on one already): misuse, made here only to see those ends.
        let twice = RecordingHandler { _ in .take }
        loop.add(easy, handler: twice)
        let elsewhere = RecordingHandler { _ in .take }
        other.add(easy, handler: elsewhere)
        try await Self.waitUntil { !twice.ends.isEmpty && !elsewhere.ends.isEmpty }
        #expect(twice.ends == [.finished(CURLE_FAILED_INIT)])
        #expect(elsewhere.ends == [.finished(CURLE_FAILED_INIT)])
        #expect(running.ends.isEmpty)
        loop.cancel(id)
        try await Self.waitUntil { !running.ends.isEmpty }
        #expect(running.ends == [.cancelled])
    }

    @Test("a waited-for request pauses at its buffer limit and resumes: every byte, in order")
    func pauseAndResume() throws {
        let name = "cbr-44k-stereo.mp3"
        let loop = try #require(CurlLoop())
        var received: [UInt8] = []
        let (outcome, pauses) = Self.waitFor("\(try TestEnvironment.http())/\(name)", loop: loop, onBody: { bytes, status in
            // The loop fills the buffer past its limit while this waits, and pauses.
            if received.isEmpty { usleep(300_000) }
            received.append(contentsOf: bytes)
            return status == 200
        })
        #expect(outcome.end == .completed && outcome.interruption == nil)
        #expect(pauses > 0, "the buffer never filled")
        let file = try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/\(name)"))
        #expect(received.count == file.count && received == [UInt8](file))
    }

    @Test("a request with a byte limit is cut off on the loop at the chunk that crosses it")
    func byteLimit() throws {
        let loop = try #require(CurlLoop())
        let limit = 1000
        var handed = 0
        let (outcome, pauses) = Self.waitFor("\(try TestEnvironment.http())/cbr-44k-stereo.mp3", loop: loop,
                                             limits: .init(byteLimit: limit), onBody: { bytes, _ in
            // Takes everything: only the byte limit can end this request early.
            handed += bytes.count
            return true
        })
        #expect(outcome.end == .cancelled && outcome.interruption == .refused)
        #expect(handed <= limit, "\(handed) bytes reached the caller past a limit of \(limit)")
        #expect(pauses == 0, "the body was buffered up to the pause limit before it was cut off")

        let within = Self.waitFor("\(try TestEnvironment.http())/random.bin", loop: loop,
                                  limits: .init(byteLimit: 65536)).outcome
        #expect(within.end == .completed && within.interruption == nil, "a body of exactly the limit is whole")
    }

    @Test("a refused body, a stop and a silent server each end a waited-for request as such")
    func interruptions() throws {
        let loop = try #require(CurlLoop())
        let refused = Self.waitFor("\(try TestEnvironment.http())/cbr-44k-stereo.mp3", loop: loop, onBody: { _, _ in false }).outcome
        #expect(refused.end == .cancelled && refused.interruption == .refused)

        // A stop is noticed when its wake-up is signalled, not at the next look.
        let started = ContinuousClock.now
        let stop = Atomic<Bool>(false)
        let wakeUp = WakeUpSignal()
        Task {
            try await Task.sleep(for: .milliseconds(200))
            stop.store(true, ordering: .releasing)
            wakeUp.signal()
        }
        let stopped = Self.waitFor("\(try TestEnvironment.blackHole())/x", loop: loop, wakeUp: wakeUp,
                                   shouldStop: { stop.load(ordering: .acquiring) }).outcome
        #expect(stopped.end == .cancelled && stopped.interruption == .stopped)
        #expect(ContinuousClock.now - started < .milliseconds(900), "the stop waited for the next look")

        let stalled = Self.waitFor("\(try TestEnvironment.blackHole())/x", loop: loop,
                                   limits: .init(stallTimeout: 0.3)).outcome
        #expect(stalled.end == .cancelled && stalled.interruption == .stalled)

        let timedOut = Self.waitFor("\(try TestEnvironment.blackHole())/x", loop: loop, limits: .init(timeout: 0.3)).outcome
        #expect(timedOut.end == .cancelled && timedOut.interruption == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(3))

        let missing = Self.waitFor("\(try TestEnvironment.http())/no-such-file", loop: loop).outcome
        #expect(missing.recoveryFailure == .status(404), "\(missing)")
        #expect(missing.error(url: "http://x/no-such-file", limits: .init(), connectTimeout: 5)
                == .httpStatus(code: 404, url: "http://x/no-such-file"))
    }

    @Test("a transfer cancelled while paused ends as cancelled")
    func cancelWhilePaused() async throws {
        let loop = try #require(CurlLoop())
        let handler = RecordingHandler { _ in .pause }
        let easy = try Self.easy("\(try TestEnvironment.http())/cbr-44k-stereo.mp3")
        let id = loop.add(easy, handler: handler)
        try await Self.waitUntil { handler.dataCalls > 0 }
        loop.cancel(id)
        try await Self.waitUntil { !handler.ends.isEmpty }
        #expect(handler.ends == [.cancelled])
        withExtendedLifetime(easy) {}
    }

    @Test("a cancel racing with the transfer's end ends it once, either way")
    func cancelRacingCompletion() async throws {
        let loop = try #require(CurlLoop())
        let base = try TestEnvironment.http()
        var transfers: [(RecordingHandler, CurlEasy)] = []
        for round in 0..<40 {
            let handler = RecordingHandler { _ in .take }
            let easy = try Self.easy("\(base)/random.bin")
            let id = loop.add(easy, handler: handler)
            usleep(UInt32(round % 8) * 250)
            loop.cancel(id)
            transfers.append((handler, easy))
        }
        try await Self.waitUntil { transfers.allSatisfy { !$0.0.ends.isEmpty } }
        try await Task.sleep(for: .milliseconds(100))
        for (handler, _) in transfers {
            #expect(handler.ends == [.cancelled] || handler.ends == [.finished(CURLE_OK)], "\(handler.ends)")
        }
    }

    // MARK: Helpers

    /// Waits for a request for `url` on `loop`, as the engine's HLS input and playlist reader do.
    static func waitFor(_ url: String, loop: CurlLoop? = nil, limits: BlockingMediaTransfer.Limits = .init(),
                        wakeUp: WakeUpSignal = WakeUpSignal(), shouldStop: () -> Bool = { false },
                        onBody: (UnsafeRawBufferPointer, Int) -> Bool = { _, _ in true })
        -> (outcome: BlockingMediaTransfer.Outcome, pauses: Int) {
        var configuration = PlayerConfiguration(output: .null)
        configuration.connectTimeout = 5
        let transport = CurlMediaTransport(configuration: configuration, loop: loop)
        return BlockingMediaTransfer.perform(MediaRequest(url: url), on: transport, clock: .monotonic, wakeUp: wakeUp,
                                             limits: limits, shouldStop: shouldStop, onBody: onBody)
    }

    static func easy(_ url: String) throws -> CurlEasy {
        try #require(CurlEasy(url: url, maxRedirects: 0, caCertificatesPath: nil, userAgent: "StreamPlay tests",
                              connectTimeout: 5, headers: []))
    }

    static func waitUntil(within seconds: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within \(seconds) s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// What the upload progress closure heard: on which thread, how far, and what its request on
/// the loop gave.
private final class ProgressCalls: Sendable {
    let list = Mutex<[(thread: String, sent: Int64, waited: MediaTransferEnd?)]>([])
}

/// A Sendable box for a flag a closure reads.
private final class Flag: Sendable {
    let value: Atomic<Bool>
    init(_ value: Bool) { self.value = Atomic(value) }
}

/// A handler that answers body bytes as told and records what it heard.
private final class RecordingHandler: CurlTransferHandler, @unchecked Sendable {
    private let answer: @Sendable (UnsafeRawBufferPointer) -> CurlDataAnswer
    private let state = Mutex<(dataCalls: Int, ends: [CurlTransferEnd])>((0, []))

    init(answer: @escaping @Sendable (UnsafeRawBufferPointer) -> CurlDataAnswer) {
        self.answer = answer
    }

    var dataCalls: Int { state.withEngineLock { $0.dataCalls } }
    var ends: [CurlTransferEnd] { state.withEngineLock { $0.ends } }

    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer {
        state.withEngineLock { $0.dataCalls += 1 }
        return answer(bytes)
    }

    func curlDone(_ end: CurlTransferEnd) {
        state.withEngineLock { $0.ends.append(end) }
    }
}

/// A handler that holds the loop's thread in its first body callback until released (at most
/// five seconds), then aborts its transfer.
private final class StallingHandler: CurlTransferHandler, @unchecked Sendable {
    let holding = Atomic<Bool>(false)
    let ended = Atomic<Bool>(false)
    private let signal = ThreadSignal()

    func release() { signal.signal() }

    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer {
        holding.store(true, ordering: .releasing)
        signal.wait(timeout: 5)
        return .abort
    }

    func curlDone(_ end: CurlTransferEnd) {
        ended.store(true, ordering: .releasing)
    }
}
