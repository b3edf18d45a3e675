@testable import StreamPlay
import Testing

/// The track's names in ID3v2 tags of each version and text encoding.
@Suite struct ID3TextFramesTests {
    private func frame(_ id: String, _ payload: [UInt8], version: UInt8) -> [UInt8] {
        let size = payload.count
        let sizeBytes: [UInt8] = version == 4
            ? [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
            : [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return Array(id.utf8) + sizeBytes + [0, 0] + payload
    }

    private func tag(version: UInt8, _ frames: [UInt8]) -> [UInt8] {
        let size = frames.count
        return Array("ID3".utf8) + [version, 0, 0]
            + [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)] + frames
    }

    @Test func readsVersion3InLatin1AndUTF16() {
        let utf16: [UInt8] = [1, 0xFF, 0xFE] + Array("Bänd".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) + [0, 0]
        let bytes = tag(version: 3, frame("TIT2", [0] + Array("Caf".utf8) + [0xE9], version: 3)
            + frame("TPE1", utf16, version: 3) + frame("TALB", [0] + Array("Record".utf8), version: 3))
        #expect(ID3TextFrames.read(bytes) == StreamMetadata(title: "Café", artist: "Bänd", album: "Record"))
    }

    @Test func readsVersion4InUTF8() {
        let bytes = tag(version: 4, frame("TPE1", [3] + Array("Ünïcode".utf8) + [0], version: 4)
            + frame("TIT2", [3] + Array("Title".utf8), version: 4))
        #expect(ID3TextFrames.read(bytes) == StreamMetadata(title: "Title", artist: "Ünïcode"))
    }

    @Test func aCutTagGivesTheFramesBeforeTheCut() {
        let bytes = tag(version: 3, frame("TIT2", [0] + Array("Whole".utf8), version: 3)
            + frame("TALB", [0] + Array("Cut off here".utf8), version: 3))
        #expect(ID3TextFrames.read(bytes.dropLast(4)) == StreamMetadata(title: "Whole"))
    }

    @Test func noNamesIsNil() {
        #expect(ID3TextFrames.read(tag(version: 3, frame("PRIV", [1, 2, 3], version: 3))) == nil)
        #expect(ID3TextFrames.read(Array("not a tag at all".utf8)) == nil)
        #expect(ID3TextFrames.read(tag(version: 3, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])) == nil)
        #expect(ID3TextFrames.read([]) == nil)
    }
}
