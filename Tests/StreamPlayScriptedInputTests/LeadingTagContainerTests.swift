import StreamPlay
import StreamPlayTesting
import Testing

/// A container FFmpeg reads, behind an ID3v2 tag (as some taggers write one in front of any
/// file): the demuxer's own offsets count from where it began, the input's from the resource's
/// first byte, and the demuxer's seeks must land where the container says.
@Suite("Containers behind an ID3v2 tag")
struct LeadingTagContainerTests {
    @Test("a WAV larger than the demuxer's buffer, behind a tag: every sample in its place, none of the tag's bytes heard")
    func taggedWAV() async throws {
        let server = ScriptedMediaServer()
        let url = "https://media.test/tagged.wav"
        // 160 000 bytes of audio: the demuxer looks past the data chunk for more chunks and
        // seeks back to it, beyond what it holds in its buffer.
        let wav = ChannelLimitTests.wav(channels: 2, frames: 40_000)
        server.serve(ChannelLimitTests.replayGainTag("-3.00 dB") + wav, at: url, contentType: "audio/wav")
        let play = try await ScriptedPlay.play(server, url: url)
        #expect(play.state.hasEnded, "\(play.state)")
        var expected: [Int16] = []
        for frame in 0..<40_000 {
            expected += [Int16(100 + frame % 50), Int16(200 + frame % 50)]
        }
        #expect(play.samples.count == expected.count, "\(play.samples.count) samples")
        #expect(SampleDifference.between(play.samples, expected) == nil)
    }
}
