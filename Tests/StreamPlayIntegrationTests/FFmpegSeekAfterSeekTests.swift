import Foundation
import Testing
@testable import StreamPlay

/// A seek that comes while the last seek's audio before its target is still being dropped:
/// FFmpeg's decoder on its own, fed in small pieces, with the second seek taken at every point
/// of the first one's drop.
@Suite("FFmpeg: a seek during another seek's drop", .needsTestServers)
struct FFmpegSeekAfterSeekTests {
    /// Hands out `data` in pieces of `chunk` bytes; after `interruptAfter` calls it interrupts
    /// once, as a waiting seek command makes the real pump do.
    final class PiecewisePump: DecoderInputPump {
        let data: [UInt8]
        let chunk: Int
        var position = 0
        var calls = 0
        var interruptAfter: Int?
        private(set) var interrupted = false
        weak var decoder: FFmpegDecoder?

        init(data: [UInt8], chunk: Int) {
            self.data = data
            self.chunk = chunk
        }

        func pumpInput() -> InputPumpResult {
            calls += 1
            if let limit = interruptAfter, calls > limit {
                interruptAfter = nil
                interrupted = true
                return .interrupted
            }
            guard position < data.count, let decoder else { return .ended }
            let end = min(position + chunk, data.count)
            data[position..<end].withUnsafeBytes { try? decoder.feed($0) }
            position = end
            return .fed
        }

        func repositionInput(to offset: Int) { position = min(max(offset, 0), data.count) }
        var inputIsSeekable: Bool { true }
        var inputLength: Int? { data.count }
    }

    struct Heard: Equatable {
        let firstFrame: Int
        let samples: [Int16]
    }

    /// Seeks to `first`, takes the pump's interrupt after `interruptAfter` of its calls (if the
    /// drop is not over by then), then seeks to `second`; returns the first `frames` frames heard
    /// after the second seek, and where the decoder says they start.
    static func play(_ data: [UInt8], first: Int?, interruptAfter: Int, second: Int, frames: Int) throws -> Heard? {
        let pump = PiecewisePump(data: data, chunk: 512)
        let decoder = try FFmpegDecoder(container: .flac, pump: pump)
        pump.decoder = decoder
        decoder.setInputLength(data.count)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FFmpegDecoder.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        // Bounded: a decode that goes nowhere fails the test rather than hang it.
        var steps = 0
        func step() throws -> DecodeStep {
            steps += 1
            try #require(steps < 100_000, "the decode went on without end")
            return try decoder.decode(into: buffer)
        }
        while try step() != .formatChanged {}
        if let first {
            _ = try decoder.seek(toFrame: first)
            pump.calls = 0
            pump.interruptAfter = interruptAfter
            // Until the interrupt, or until the first seek's audio is heard (its drop was over).
            while !pump.interrupted {
                if case .audio = try step() { return nil }
            }
        }
        _ = try decoder.seek(toFrame: second)
        var heard: [Int16] = []
        var start: Int?
        let channels = try #require(decoder.format).channels
        while heard.count < frames * channels {
            switch try step() {
            case .audio(let byteCount, let firstFrame):
                if start == nil { start = firstFrame }
                heard += buffer.prefix(byteCount).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            case .finished:
                Issue.record("the track ended after \(heard.count) samples")
                return Heard(firstFrame: start ?? -1, samples: heard)
            default:
                continue
            }
        }
        return Heard(firstFrame: try #require(start), samples: Array(heard.prefix(frames * channels)))
    }

    @Test("the second seek's audio starts at its own target, wherever in the first one's drop it came")
    func secondSeekStartsAtItsTarget() throws {
        // A FLAC lands up to half a second before the target, in frames of 4 096 samples: the
        // drop runs over several reads.
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/formats/tone.flac")))
        let rate = 44_100, second = rate / 2
        let direct = try #require(try Self.play(data, first: nil, interruptAfter: 0, second: second, frames: 8_192))
        #expect(direct.firstFrame == second)
        var interruptedMidDrop = 0
        for calls in stride(from: 0, to: 400, by: 4) {
            guard let heard = try Self.play(data, first: 3 * rate + 12_345, interruptAfter: calls, second: second, frames: 8_192) else {
                continue
            }
            interruptedMidDrop += 1
            #expect(heard.firstFrame == second, "interrupted after \(calls) reads")
            #expect(heard == direct, "interrupted after \(calls) reads: the audio differs from a seek made alone")
        }
        #expect(interruptedMidDrop >= 3, "the second seek never came during the first one's drop")
    }
}
