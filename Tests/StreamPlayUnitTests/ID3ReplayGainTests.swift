@testable import StreamPlay
import Testing

/// ReplayGain in ID3v2 `TXXX` frames, as mp3gain, foobar2000 and ffmpeg write them.
@Suite struct ID3ReplayGainTests: ID3TagBuilding {
    private func latin1(_ description: String, _ value: String) -> [UInt8] {
        [0] + Array(description.utf8) + [0] + Array(value.utf8)
    }

    private func utf16(_ text: String) -> [UInt8] {
        [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test func readsTheFourValuesFromVersion4() throws {
        let bytes = tag(version: 4, frame("TXXX", latin1("REPLAYGAIN_TRACK_GAIN", "-6.02 dB"), version: 4)
            + frame("TXXX", latin1("REPLAYGAIN_TRACK_PEAK", "0.500000"), version: 4)
            + frame("TXXX", latin1("replaygain_album_gain", "-3.00 dB"), version: 4)
            + frame("TXXX", latin1("replaygain_album_peak", "0.9"), version: 4)
            + frame("TIT2", [3] + Array("Title".utf8), version: 4))
        let read = try #require(ID3TagReader.read(bytes))
        #expect(read.title == "Title")
        #expect(read.replayGainValues == ReplayGainValues(trackGain: -6.02, trackPeak: 0.5, albumGain: -3, albumPeak: 0.9,
                                                          source: .id3v2))
    }

    @Test func readsUTF16FramesOfVersion3AndIgnoresOtherUserText() throws {
        let payload: [UInt8] = [1] + utf16("replaygain_track_gain") + [0, 0] + utf16("+2.5 dB") + [0, 0]
        let bytes = tag(version: 3, frame("TXXX", payload, version: 3)
            + frame("TXXX", latin1("MusicBrainz Album Id", "1234"), version: 3))
        let read = try #require(ID3TagReader.read(bytes))
        #expect(read.replayGainValues?.trackGain == 2.5)
        #expect(read.replayGainValues?.albumGain == nil)
        #expect(read.isEmpty)
    }

    @Test func aTagWithoutGainHasNoValues() {
        let bytes = tag(version: 3, frame("TXXX", latin1("comment", "hello"), version: 3))
        #expect(ID3TagReader.read(bytes) == nil)
        #expect(ID3TagReader.userDefinedText([0] + Array("only a description".utf8)) == nil)
        #expect(ID3TagReader.userDefinedText([]) == nil)
    }

    @Test func readsVersion2TXX() throws {
        let bytes = tag(version: 2, frame("TXX", latin1("REPLAYGAIN_ALBUM_GAIN", "-1.5 dB"), version: 2))
        #expect(try #require(ID3TagReader.read(bytes)).replayGainValues?.albumGain == -1.5)
    }
}
