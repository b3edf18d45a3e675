@testable import StreamPlay
import StreamPlayTesting
import Synchronization
import Testing

/// The Range request for an MP3's trailing bytes (its ID3v1 tag) on a `ScriptedMediaServer`,
/// timed by a `ManualClock`: it gives up only once the clock passes its timeout. Each read runs
/// on a thread of its own, as on the engine's; no I/O.
@Suite("Trailing bytes: the Range request's timeout on a manual clock", .timeLimit(.minutes(1)))
struct TrailingBytesManualClockTests {
    static let url = "https://media.example/track.mp3"
    static let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0) }

    /// One `remote` read on a thread of its own, and what it returned.
    final class TrailingRead: Sendable {
        /// Outer nil: still reading; inner nil: it returned nil.
        private let outcome = Mutex<[UInt8]??>(nil)

        init(server: ScriptedMediaServer, clock: ManualClock) throws {
            let started = EngineThread.detached(name: "sp-trailing-test") { [self] in
                var configuration = PlayerConfiguration(output: .null)
                configuration.mediaTransport = server
                configuration.clock = clock
                let trailer = TrailingBytesReader.remote(
                    TrailingBytesManualClockTests.url, totalLength: TrailingBytesManualClockTests.bytes.count,
                    count: 128, configuration: configuration, shouldStop: { false })
                outcome.withEngineLock { $0 = .some(trailer) }
            }
            try #require(started)
        }

        var returned: Bool { outcome.withEngineLock { $0 } != nil }
        var trailer: [UInt8]? { outcome.withEngineLock { $0 } ?? nil }
    }

    @Test("an answered Range request gives the last bytes, with no time passing on the clock")
    func answeredRequest() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(Self.bytes, at: Self.url)
        let read = try TrailingRead(server: server, clock: clock)
        try #require(await eventually { read.returned })
        #expect(read.trailer == Array(Self.bytes.suffix(128)))
        #expect(server.requests.map(\.rangeStart) == [Self.bytes.count - 128])
        #expect(server.requests.map(\.rangeEnd) == [Self.bytes.count - 1])
    }

    @Test("a Range request that stalls gives nil only once the clock passes the timeout")
    func stalledRequestTimesOutOnTheClock() async throws {
        let started = ContinuousClock.now
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(Self.bytes, at: Self.url)
        server.script(Self.url, .stall(atByte: 0))
        let read = try TrailingRead(server: server, clock: clock)
        // The reader takes its deadline before starting the transfer, and sleeps on the clock
        // until it (or until news of the transfer).
        try #require(await eventually { server.stalledTransfers == 1 })
        clock.advance(by: .seconds(TrailingBytesReader.timeout) - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!read.returned, "gave up before the timeout, at \(clock.now)")
        clock.advance(by: .milliseconds(1))
        try #require(await eventually { read.returned }, "still reading at \(clock.now)")
        #expect(read.trailer == nil)
        // The timeout was the clock's, not the machine's.
        #expect(ContinuousClock.now - started < .seconds(TrailingBytesReader.timeout))
    }
}
