import StreamPlay
import StreamPlayTesting
import Testing

/// How many channels a stream may have: up to ``FFmpegDecoder``'s limit it plays, beyond it the
/// play fails with a typed error before libswresample (whose ReplayGain matrix holds 64
/// channels, unchecked) or a sound server sees it.
@Suite("Channel limit")
struct ChannelLimitTests {
    /// A 16-bit PCM WAV of `frames` frames with `channels` channels at 8 kHz; each channel's
    /// samples differ, so a shuffled or dropped channel shows.
    static func wav(channels: Int, frames: Int) -> [UInt8] {
        func le(_ value: Int, bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let dataSize = frames * channels * 2
        var bytes = Array("RIFF".utf8) + le(36 + dataSize, bytes: 4) + Array("WAVEfmt ".utf8)
        bytes += le(16, bytes: 4) + le(1, bytes: 2) + le(channels, bytes: 2) + le(8_000, bytes: 4)
        bytes += le(8_000 * channels * 2, bytes: 4) + le(channels * 2, bytes: 2) + le(16, bytes: 2)
        bytes += Array("data".utf8) + le(dataSize, bytes: 4)
        for frame in 0..<frames {
            for channel in 0..<channels { bytes += le((channel + 1) * 100 + frame % 50, bytes: 2) }
        }
        return bytes
    }

    /// An ID3v2.4 tag with one `TXXX` frame, `REPLAYGAIN_TRACK_GAIN` = `gain`, to put in front.
    static func replayGainTag(_ gain: String) -> [UInt8] {
        func syncsafe(_ value: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) } }
        let body = [3] + Array("REPLAYGAIN_TRACK_GAIN".utf8) + [0] + Array(gain.utf8)
        let frame = Array("TXXX".utf8) + syncsafe(body.count) + [0, 0] + body
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frame.count) + frame
    }

    /// Plays a WAV of `channels` channels and `frames` frames; with `replayGain`, behind a tag
    /// whose track gain is -3 dB, with ReplayGain on. Returns the play and the URL it had.
    static func play(channels: Int, frames: Int, replayGain: Bool) async throws -> (ScriptedPlay, String) {
        let server = ScriptedMediaServer()
        let url = "https://media.test/\(channels).wav"
        let tag = replayGain ? replayGainTag("-3.00 dB") : []
        server.serve(tag + wav(channels: channels, frames: frames), at: url, contentType: "audio/wav")
        let play = try await ScriptedPlay.play(server, url: url, configure: { configuration in
            if replayGain { configuration.replayGain.mode = .track }
        })
        return (play, url)
    }

    @Test("32 channels play whole, each channel its own samples, with a ReplayGain of -3 dB applied to each or none",
          arguments: [false, true])
    func thirtyTwoChannelsPlay(replayGain: Bool) async throws {
        let channelCount = 32
        let (play, _) = try await Self.play(channels: channelCount, frames: 4_000, replayGain: replayGain)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(play.formats == [AudioFormat(sampleRate: 8_000, channels: channelCount)])
        #expect(play.samples.count == 4_000 * channelCount, "\(play.samples.count) samples")
        // Every sample of every frame in its place, scaled once (within a rounding step).
        let scale = replayGain ? 0.707_945_784 : 1   // 10^(-3/20)
        let wrong = play.samples.indices.first { index in
            let (frame, channel) = index.quotientAndRemainder(dividingBy: channelCount)
            let expected = (Double((channel + 1) * 100 + frame % 50) * scale).rounded()
            return abs(Double(play.samples[index]) - expected) > 1
        }
        #expect(wrong == nil, "sample \(wrong ?? 0) is \(wrong.map { play.samples[$0] } ?? 0)")
    }

    @Test("more channels than the limit fail as unsupportedFormat, naming the count, with ReplayGain on or off",
          arguments: [(33, false), (65, false), (65, true), (300, true)])
    func tooManyChannelsFail(channels: Int, replayGain: Bool) async throws {
        // With a gain to apply, the decoder would set libswresample's matrix for every channel.
        let (play, url) = try await Self.play(channels: channels, frames: 800, replayGain: replayGain)
        #expect(play.state == .failed(.unsupportedFormat(url: url, format: "WAV audio with \(channels) channels (at most 32 play)")),
                "\(play.state)")
        #expect(play.samples.isEmpty)
    }
}
