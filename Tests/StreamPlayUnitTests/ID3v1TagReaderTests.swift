@testable import StreamPlay
import Testing

/// ID3v1 and ID3v1.1 tags at the end of an MP3, with the enhanced `TAG+` block, read from bytes
/// alone.
@Suite struct ID3v1TagReaderTests {
    /// A fixed-size field: the bytes, then `pad` up to `length`.
    private func field(_ bytes: [UInt8], _ length: Int, pad: UInt8 = 0) -> [UInt8] {
        Array((bytes + [UInt8](repeating: pad, count: length)).prefix(length))
    }

    /// An ID3v1 tag; `track` makes it ID3v1.1.
    private func tag(title: [UInt8], artist: [UInt8] = [], album: [UInt8] = [], comment: [UInt8] = [],
                     track: UInt8? = nil, genre: UInt8 = 17, pad: UInt8 = 0) -> [UInt8] {
        var bytes = Array("TAG".utf8) + field(title, 30, pad: pad) + field(artist, 30, pad: pad) + field(album, 30, pad: pad)
        bytes += Array("1999".utf8)
        if let track {
            bytes += field(comment, 28, pad: pad) + [0, track]
        } else {
            bytes += field(comment, 30, pad: pad)
        }
        return bytes + [genre]
    }

    @Test func readsLatin1Fields() {
        let bytes = tag(title: Array("Caf".utf8) + [0xE9], artist: Array("B".utf8) + [0xE4, 0x6E, 0x64], album: Array("Record".utf8))
        #expect(bytes.count == 128)
        #expect(ID3v1TagReader.read(bytes) == StreamMetadata(title: "Café", artist: "Bänd", album: "Record"))
    }

    @Test func trimsTrailingNULsAndSpaces() {
        let spaces = tag(title: Array("Spaced Out".utf8), artist: Array("Artist".utf8), pad: 0x20)
        #expect(ID3v1TagReader.read(spaces) == StreamMetadata(title: "Spaced Out", artist: "Artist"))
        // What follows a NUL is padding, whatever it holds.
        let garbage = tag(title: Array("Short".utf8) + [0] + Array("junk".utf8))
        #expect(ID3v1TagReader.read(garbage) == StreamMetadata(title: "Short"))
        let mixed = tag(title: Array("Mixed  ".utf8) + [0, 0x20, 0])
        #expect(ID3v1TagReader.read(mixed)?.title == "Mixed")
    }

    @Test func readsTheVersion1Point1TrackNumber() {
        let bytes = tag(title: Array("Numbered".utf8), comment: Array("a comment".utf8), track: 7)
        #expect(ID3v1TagReader.read(bytes) == StreamMetadata(title: "Numbered", trackNumber: 7))
        // ID3v1.0: the comment fills all 30 bytes, and its last ones are no track number.
        let plain = tag(title: Array("Plain".utf8), comment: Array("a comment of thirty characters".utf8))
        #expect(ID3v1TagReader.read(plain) == StreamMetadata(title: "Plain"))
        // A zero track byte is no number.
        #expect(ID3v1TagReader.read(tag(title: Array("Zero".utf8), track: 0))?.trackNumber == nil)
    }

    @Test func ignoresTheGenreYearAndComment() {
        let onlyGenre = tag(title: [], comment: Array("comment".utf8), genre: 9)
        #expect(ID3v1TagReader.read(onlyGenre) == nil)
        let first = ID3v1TagReader.read(tag(title: Array("Same".utf8), genre: 0))
        #expect(first == ID3v1TagReader.read(tag(title: Array("Same".utf8), genre: 255)))
    }

    @Test func readsTheTagAtTheEndOfWhatIsGiven() {
        let audio = [UInt8](repeating: 0xFF, count: 500)
        #expect(ID3v1TagReader.read(audio + tag(title: Array("Last".utf8)))?.title == "Last")
        #expect(ID3v1TagReader.read(audio) == nil)
        #expect(ID3v1TagReader.read(Array(tag(title: Array("Cut".utf8)).dropLast())) == nil)
        #expect(ID3v1TagReader.read(Array("TAG".utf8)) == nil)
        #expect(ID3v1TagReader.read([UInt8]()) == nil)
    }

    @Test func theEnhancedBlockContinuesFullFields() {
        let long = Array("A title of exactly thirty char".utf8)
        #expect(long.count == 30)
        var enhanced = Array("TAG+".utf8) + field(Array("acters, and then some".utf8), 60)
        enhanced += field(Array("ignored: the artist was short".utf8), 60) + field([], 60)
        enhanced += [0] + field([], 30) + field([], 6) + field([], 6)
        #expect(enhanced.count == ID3v1TagReader.enhancedSize)
        let bytes = enhanced + tag(title: long, artist: Array("Short".utf8))
        let names = ID3v1TagReader.read(bytes)
        #expect(names?.title == "A title of exactly thirty characters, and then some")
        #expect(names?.artist == "Short")
    }

    @Test func theVersion2TagWinsAndVersion1FillsTheGaps() {
        let v2 = StreamMetadata(title: "From v2", album: "Album v2")
        let v1 = StreamMetadata(title: "From v1", artist: "Artist v1", album: "Album v1", trackNumber: 4)
        #expect(v2.filling(from: v1) == StreamMetadata(title: "From v2", artist: "Artist v1", album: "Album v2", trackNumber: 4))
    }
}
