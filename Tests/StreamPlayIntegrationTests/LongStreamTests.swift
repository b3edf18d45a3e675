import Foundation
import Testing
@testable import StreamPlay

/// Memory stays flat over a long stream: three hours of audio decoded to the null sink (faster than
/// real time), with the resident size measured from the first minute to the last.
@Suite("Long streams", .serialized, .needsTestServers)
struct LongStreamTests {
    /// Resident memory of this process in KiB.
    static func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("three hours of stream: resident memory grows by less than 2 MiB after the first minute")
    func memoryIsFlat() async throws {
        // 360 times the 30 s track: three hours, 173 MB over HTTP, as one response.
        let url = "\(try TestEnvironment.value("STREAMPLAY_TEST_FAULTS"))/repeat/360/cbr-44k-stereo.mp3?\(UUID().uuidString.prefix(8))"
        let player = Player(configuration: PlayerConfiguration(output: .null))
        player.play(url)
        try await player.wait(for: "the first minute", within: 60) { ($0.position ?? 0) >= 60 }
        let early = Self.residentKiB()
        var peak = early
        while !player.state.isFinal {
            peak = max(peak, Self.residentKiB())
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(player.state == .ended)
        let heard = player.position ?? 0
        #expect(heard > 3 * 3600 - 10, "played \(heard) s of the three hours")
        player.stop()
        #expect(peak - early < 2048, "resident memory grew by \(peak - early) KiB from \(early) KiB")
    }
}
