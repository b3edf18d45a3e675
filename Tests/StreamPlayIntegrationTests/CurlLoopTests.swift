import CCurl
import Foundation
import Synchronization
import Testing
@testable import StreamPlay

/// The one libcurl driver (`CurlLoop`) and the waited-for requests on it
/// (`CurlBlockingRequest`), against nginx on loopback. Most use a loop of their own, so that
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
        CurlLoop.shared.add(stallEasy, handler: staller)
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

    // MARK: Helpers

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
