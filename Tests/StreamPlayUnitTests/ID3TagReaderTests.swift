@testable import StreamPlay
import Testing

/// The track's names, number and cover in ID3v2 tags of each version and text encoding.
@Suite struct ID3TagReaderTests: ID3TagBuilding {
    /// A PNG signature and a few bytes: enough to be recognised as a picture.
    private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 0xFF, 0x00, 4]
    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 9, 8, 7]

    @Test func readsVersion3InLatin1AndUTF16() {
        let utf16: [UInt8] = [1, 0xFF, 0xFE] + Array("Bänd".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) + [0, 0]
        let bytes = tag(version: 3, frame("TIT2", [0] + Array("Caf".utf8) + [0xE9], version: 3)
            + frame("TPE1", utf16, version: 3) + frame("TALB", [0] + Array("Record".utf8), version: 3))
        #expect(ID3TagReader.read(bytes) == StreamMetadata(title: "Café", artist: "Bänd", album: "Record"))
    }

    @Test func readsVersion4InUTF8() {
        let bytes = tag(version: 4, frame("TPE1", [3] + Array("Ünïcode".utf8) + [0], version: 4)
            + frame("TIT2", [3] + Array("Title".utf8), version: 4))
        #expect(ID3TagReader.read(bytes) == StreamMetadata(title: "Title", artist: "Ünïcode"))
    }

    @Test func aCutTagGivesTheFramesBeforeTheCut() {
        let bytes = tag(version: 3, frame("TIT2", [0] + Array("Whole".utf8), version: 3)
            + frame("TALB", [0] + Array("Cut off here".utf8), version: 3))
        #expect(ID3TagReader.read(bytes.dropLast(4)) == StreamMetadata(title: "Whole"))
    }

    @Test func readsTheTrackNumberAndTheFrontCover() {
        // An "other" picture first, then the front cover (type 3) with a UTF-16 description.
        let description: [UInt8] = [0xFF, 0xFE] + Array("Front".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) + [0, 0]
        let bytes = tag(version: 3, frame("TRCK", [0] + Array("03/12".utf8), version: 3)
            + frame("APIC", [0] + Array("image/jpeg".utf8) + [0, 0] + Array("other".utf8) + [0] + jpeg, version: 3)
            + frame("APIC", [1] + Array("image/png".utf8) + [0, 3] + description + png, version: 3)
            + frame("TIT2", [0] + Array("After".utf8), version: 3))
        let names = ID3TagReader.read(bytes)
        #expect(names?.trackNumber == 3)
        #expect(names?.title == "After")
        #expect(names?.artwork == Artwork(data: png, mimeType: "image/png"))
    }

    @Test func aPictureAloneIsKeptWhateverItsType() {
        let bytes = tag(version: 3, frame("APIC", [3] + Array("image/jpg".utf8) + [0, 0, 0] + jpeg, version: 3))
        #expect(ID3TagReader.read(bytes)?.artwork?.data == jpeg)
        #expect(ID3TagReader.read(bytes)?.artwork?.mimeType == "image/jpeg")
    }

    @Test func readsVersion2PictureAndNumber() {
        let bytes = tag(version: 2, frame("TRK", [0] + Array("7".utf8), version: 2)
            + frame("PIC", [0] + Array("PNG".utf8) + [3] + Array("d".utf8) + [0] + png, version: 2))
        let names = ID3TagReader.read(bytes)
        #expect(names?.trackNumber == 7)
        #expect(names?.artwork?.data == png)
    }

    @Test func readsVersion4FramesWithUnsynchronisationAndADataLengthIndicator() {
        // The picture holds 0xFF 0x00, which unsynchronisation writes as 0xFF 0x00 0x00.
        let content: [UInt8] = [0] + Array("image/png".utf8) + [0, 3, 0] + png
        var unsynchronised: [UInt8] = []
        for (index, byte) in content.enumerated() {
            unsynchronised.append(byte)
            if byte == 0xFF, index + 1 < content.count, content[index + 1] & 0xE0 == 0xE0 || content[index + 1] == 0 {
                unsynchronised.append(0)
            }
        }
        let length = content.count
        let indicator: [UInt8] = [UInt8(length >> 21 & 0x7F), UInt8(length >> 14 & 0x7F), UInt8(length >> 7 & 0x7F), UInt8(length & 0x7F)]
        let bytes = tag(version: 4, frame("APIC", indicator + unsynchronised, version: 4, flags: 0x03))
        #expect(ID3TagReader.read(bytes)?.artwork?.data == png)
    }

    @Test func aCompressedPictureIsNotRead() {
        let bytes = tag(version: 4, frame("APIC", [0] + Array("image/png".utf8) + [0, 3, 0] + png, version: 4, flags: 0x08)
            + frame("TIT2", [3] + Array("T".utf8), version: 4))
        #expect(ID3TagReader.read(bytes) == StreamMetadata(title: "T"))
    }

    @Test func trackNumbers() {
        #expect(StreamMetadata.trackNumber(from: "3/12") == 3)
        #expect(StreamMetadata.trackNumber(from: " 07") == 7)
        #expect(StreamMetadata.trackNumber(from: "0") == nil)
        #expect(StreamMetadata.trackNumber(from: "A1") == nil)
        #expect(StreamMetadata.trackNumber(from: "") == nil)
    }

    @Test func artworkIsCappedAndTypedByItsBytes() {
        #expect(Artwork(data: [], mimeType: "image/png") == nil)
        #expect(Artwork(data: [UInt8](repeating: 1, count: Artwork.maximumSize + 1), mimeType: "image/png") == nil)
        #expect(Artwork(data: [UInt8](repeating: 1, count: Artwork.maximumSize), mimeType: "image/png") != nil)
        #expect(Artwork(data: png, mimeType: "image/jpeg")?.mimeType == "image/png")
        #expect(Artwork(data: [1, 2, 3], mimeType: "JPG")?.mimeType == "image/jpeg")
        #expect(Artwork(data: [1, 2, 3], mimeType: "")?.fileExtension == "img")
    }

    @Test func noNamesIsNil() {
        #expect(ID3TagReader.read(tag(version: 3, frame("PRIV", [1, 2, 3], version: 3))) == nil)
        #expect(ID3TagReader.read(Array("not a tag at all".utf8)) == nil)
        #expect(ID3TagReader.read(tag(version: 3, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])) == nil)
        #expect(ID3TagReader.read([]) == nil)
    }
}
