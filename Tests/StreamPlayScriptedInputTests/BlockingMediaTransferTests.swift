@testable import StreamPlay
import StreamPlayTesting
import Synchronization
import Testing

/// The engine's waited-for request (what HLS segments, playlists, keys and tags use) on a
/// `ScriptedMediaServer` and a `ManualClock`: its wake-ups and its stall timeout, with no I/O.
@Suite("Scripted input: a waited-for request's wake-ups and stall timeout", .timeLimit(.minutes(1)))
struct BlockingMediaTransferTests {
    static let url = "https://media.test/segment.bin"
    static let bytes = (0..<12_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// One request on a thread of its own, as an engine thread makes it.
    final class WaitedRequest: Sendable {
        private let result = Mutex<(outcome: BlockingMediaTransfer.Outcome, bytes: [UInt8])?>(nil)

        init(server: ScriptedMediaServer, clock: ManualClock, wakeUp: WakeUpSignal, stallTimeout: Double,
             onBody: @escaping @Sendable (Int) -> Void) throws {
            let started = EngineThread.detached(name: "sp-waited-test") { [self] in
                var received: [UInt8] = []
                let (outcome, _) = BlockingMediaTransfer.perform(
                    MediaRequest(url: BlockingMediaTransferTests.url), on: server, clock: clock, wakeUp: wakeUp,
                    limits: .init(stallTimeout: stallTimeout), shouldStop: { false }
                ) { bytes, _ in
                    onBody(received.count)
                    received.append(contentsOf: bytes)
                    return true
                }
                result.withEngineLock { $0 = (outcome, received) }
            }
            try #require(started)
        }

        var outcome: BlockingMediaTransfer.Outcome? { result.withEngineLock { $0?.outcome } }
        var bytes: [UInt8]? { result.withEngineLock { $0?.bytes } }
    }

    @Test("news that comes while the caller is busy in its body handler, on the same wake-up, is not slept through")
    func newsDuringTheBodyHandler() async throws {
        let clock = ManualClock()
        let transport = SteppedTransport(first: Array(Self.bytes.prefix(1_000)), rest: Array(Self.bytes.dropFirst(1_000)))
        let wakeUp = WakeUpSignal()
        let result = Mutex<(BlockingMediaTransfer.Outcome, [UInt8])?>(nil)
        let started = EngineThread.detached(name: "sp-waited-test") {
            var received: [UInt8] = []
            let (outcome, _) = BlockingMediaTransfer.perform(
                MediaRequest(url: Self.url), on: transport, clock: clock, wakeUp: wakeUp,
                limits: .init(stallTimeout: 10), shouldStop: { false }
            ) { bytes, _ in
                if received.isEmpty {
                    // Busy with the first bytes, asleep on the caller's own wake-up (as an HLS
                    // input waits for room in its ring), while the rest and the end come and
                    // their signals are used up here.
                    transport.sendRest()
                    while !transport.ended { wakeUp.wait(timeout: .milliseconds(20)) }
                    wakeUp.wait(timeout: .milliseconds(50))
                }
                received.append(contentsOf: bytes)
                return true
            }
            result.withLock { $0 = (outcome, received) }
        }
        try #require(started)
        // Never moved, the clock cannot end the wait: only a look after the handler can.
        #expect(await eventually(timeout: .seconds(3)) { result.withLock { $0 } != nil }, "the request slept through its end")
        #expect(result.withLock { $0?.0.end } == .completed)
        #expect(result.withLock { $0?.1 } == Self.bytes)
    }

    @Test("the stall timeout counts time spent waiting for bytes, not time the caller was busy while the clock moved")
    func busySpellIsNotAStall() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer(chunkSize: 1_000)
        server.serve(Self.bytes, at: Self.url)
        server.script(Self.url, .stall(atByte: 3_000))
        // The first bytes' handler is busy for 30 s of the clock (an HLS input whose listener
        // paused, its ring full), three times the stall timeout.
        let request = try WaitedRequest(server: server, clock: clock, wakeUp: WakeUpSignal(), stallTimeout: 10) { before in
            if before == 0 { clock.advance(by: .seconds(30)) }
        }
        try #require(await eventually { server.stalledTransfers == 1 })
        // It gives up 10 s after the busy spell, not at once.
        #expect(await clock.waitForSleeper { $0 == .seconds(40) }, "\(clock.sleepingDeadlines), now \(clock.now)")
        #expect(request.outcome == nil, "gave up at \(clock.now): \(String(describing: request.outcome))")
        clock.advance(by: .seconds(10))
        #expect(await eventually { request.outcome != nil })
        #expect(request.outcome?.interruption == .stalled)
        #expect(request.bytes == Array(Self.bytes.prefix(3_000)))
    }
}

/// A transport that sends a first chunk, then the rest and the end only when told: the test
/// decides what the caller is doing when they come.
private final class SteppedTransport: MediaTransport, MediaTransferControl {
    private let first: [UInt8]
    private let rest: [UInt8]
    private let receiver = Mutex<(any MediaTransferReceiver)?>(nil)
    private let done = Atomic<Bool>(false)

    init(first: [UInt8], rest: [UInt8]) {
        self.first = first
        self.rest = rest
    }

    var ended: Bool { done.load(ordering: .acquiring) }

    func startTransfer(_ request: MediaRequest, receiver: any MediaTransferReceiver) -> any MediaTransferControl {
        self.receiver.withLock { $0 = receiver }
        receiver.receiveHead(MediaResponseHead(status: 200))
        _ = first.withUnsafeBytes { receiver.receiveBody($0) }
        return self
    }

    /// Sends the rest, in small chunks, and the end, from a thread of its own.
    func sendRest() {
        guard let receiver = receiver.withLock({ $0 }) else { return }
        _ = EngineThread.detached(name: "sp-stepped-test") { [self] in
            for start in stride(from: 0, to: rest.count, by: 1_000) {
                _ = rest[start..<min(start + 1_000, rest.count)].withUnsafeBytes { receiver.receiveBody($0) }
            }
            receiver.receiveEnd(.completed)
            self.done.store(true, ordering: .releasing)
        }
    }

    func resume() {}
    func cancel() {}
}
