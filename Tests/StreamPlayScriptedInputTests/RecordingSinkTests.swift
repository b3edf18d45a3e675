import StreamPlay
import StreamPlayTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// StreamPlayTesting's recording sink, alone: what it keeps, and its pace.
@Suite("Recording sink")
struct RecordingSinkTests {
    static let format = AudioFormat(sampleRate: 8000, channels: 2)

    /// Writes `frames` frames of the sample value `value`; returns the bytes taken.
    static func write(_ sink: RecordingSink, frames: Int, value: Int16) throws -> Int {
        let samples = [Int16](repeating: value, count: frames * 2)
        return try samples.withUnsafeBytes { try sink.write($0) }
    }

    @Test("unpaced, it keeps every sample, a part per format")
    func keepsParts() throws {
        let sink = RecordingSink()
        try sink.open(format: Self.format)
        #expect(try Self.write(sink, frames: 100, value: 1) == 400)
        try sink.open(format: AudioFormat(sampleRate: 8000, channels: 1))
        _ = try [Int16](repeating: 2, count: 50).withUnsafeBytes { try sink.write($0) }
        #expect(sink.parts.map(\.samples.count) == [200, 50])
        #expect(sink.samples == [Int16](repeating: 1, count: 200) + [Int16](repeating: 2, count: 50))
    }

    @Test("paced, it takes audio no faster than real time, past its lead")
    func pacesToRealTime() throws {
        let sink = RecordingSink(pacedAhead: 0.05, keepingSamples: false)
        try sink.open(format: Self.format)
        let start = ContinuousClock.now
        // 0.4 s of audio, a tenth at a time: the last tenth waits until 0.3 s less the lead.
        for _ in 0..<4 { #expect(try Self.write(sink, frames: 800, value: 3) == 3200) }
        #expect(ContinuousClock.now - start >= .milliseconds(240), "0.4 s of audio taken in \(ContinuousClock.now - start)")
        #expect(sink.parts.map(\.samples.count) == [0], "samples kept though told not to")
    }

    @Test("an interrupt ends a paced wait and takes nothing, until it is cleared")
    func interruptEndsTheWait() throws {
        let sink = RecordingSink(pacedAhead: 0)
        try sink.open(format: Self.format)
        #expect(try Self.write(sink, frames: 80_000, value: 4) == 320_000)   // 10 s ahead now
        // From a thread of its own, not the pool this test blocks a thread of.
        #expect(EngineThread.detached(name: "sp-test-interrupt") {
            usleep(100_000)
            sink.interrupt()
        })
        let start = ContinuousClock.now
        #expect(try Self.write(sink, frames: 8, value: 5) == 0)
        #expect(ContinuousClock.now - start < .seconds(5), "the wait was not cut short")
        sink.clearInterrupt()
        #expect(sink.samples.count == 160_000, "an interrupted write kept its audio")
    }

    @Test("SampleDifference names the first sample that differs, or a length that does, and finds none in equal runs")
    func sampleDifference() {
        let track = (0..<4_000_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        var changed = track
        changed[3_999_000] &+= 1
        #expect(SampleDifference.between(track, track) == nil)
        #expect(SampleDifference.between(changed, track)
                == "sample 3999000 is \(changed[3_999_000]), expected \(track[3_999_000]) (4000000 samples, expected 4000000)")
        #expect(SampleDifference.between(track.prefix(10), track.prefix(11))
                == "sample 10 is past the end, expected \(track[10]) (10 samples, expected 11)")
        #expect(SampleDifference.between(track.prefix(11), track.prefix(10))
                == "sample 10 is \(track[10]), expected past the end (11 samples, expected 10)")
    }
}
