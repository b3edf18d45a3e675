/// The PCM format the decoder produces and a sink receives.
///
/// Samples are signed 16-bit, native endian, interleaved: the format every sound server takes
/// without conversion, and the one `mpg123 -s` writes, so output compares sample for sample.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second (8000 to 48000 for MPEG audio).
    public var sampleRate: Int
    /// Interleaved channels (1 or 2 for MPEG audio).
    public var channels: Int

    /// Creates a 16-bit format.
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int { 2 }
    /// Bytes per frame (one sample for every channel).
    public var bytesPerFrame: Int { bytesPerSample * channels }

    /// Frames in `seconds` of audio.
    /// Negative, NaN and infinite times count as 0; absurdly large ones are clamped (a day).
    public func frames(forSeconds seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int((min(seconds, 86_400 * 1000) * Double(sampleRate)).rounded())
    }

    /// Seconds that `frames` last.
    public func seconds(forFrames frames: Int) -> Double {
        Double(frames) / Double(sampleRate)
    }

    /// For example "44100 Hz, 2 ch, s16".
    public var description: String { "\(sampleRate) Hz, \(channels) ch, s16" }
}
