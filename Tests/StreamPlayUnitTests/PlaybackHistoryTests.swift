@testable import StreamPlay
import Testing

/// The bytes a sink keeps to write again after its sound server came back.
@Suite struct PlaybackHistoryTests {
    private func append(_ bytes: [UInt8], to history: inout PlaybackHistory) {
        bytes.withUnsafeBytes { history.append($0) }
    }

    @Test func keepsTheNewestBytesInOrder() {
        var history = PlaybackHistory(capacity: 8)
        append([1, 2, 3, 4, 5], to: &history)
        #expect(history.suffix(3) == [3, 4, 5])
        append([6, 7, 8, 9, 10], to: &history)
        #expect(history.count == 8)
        #expect(history.suffix(8) == [3, 4, 5, 6, 7, 8, 9, 10])
        #expect(history.suffix(20) == [3, 4, 5, 6, 7, 8, 9, 10])
        append(Array(11...30), to: &history)
        #expect(history.suffix(4) == [27, 28, 29, 30])
        history.removeAll()
        #expect(history.suffix(4).isEmpty)
    }

    @Test func unplayedIsTheLatencyLessWhatPlayedInWholeFrames() {
        // 0.2 s queued at 176400 bytes/s, 0.05 s played since: 0.15 s, rounded down to frames.
        #expect(PlaybackHistory.unplayedBytes(latencyBytes: 35280, playedSeconds: 0.05, bytesPerSecond: 176_400,
                                              bytesPerFrame: 4, held: 100_000) == 26460)
        #expect(PlaybackHistory.unplayedBytes(latencyBytes: 35280, playedSeconds: 1, bytesPerSecond: 176_400,
                                              bytesPerFrame: 4, held: 100_000) == 0)
        #expect(PlaybackHistory.unplayedBytes(latencyBytes: 35283, playedSeconds: 0, bytesPerSecond: 176_400,
                                              bytesPerFrame: 4, held: 1000) == 1000)
        #expect(PlaybackHistory.unplayedBytes(latencyBytes: 10, playedSeconds: 0, bytesPerSecond: 176_400,
                                              bytesPerFrame: 4, held: 1000) == 8)
    }
}
