import Testing
@testable import StreamPlay

@Suite("ICY metadata")
struct ICYTests {
    /// An ICY stream: `audio` cut every `interval` bytes by the blocks in `titles` (nil: empty block).
    static func stream(audio: [UInt8], interval: Int, titles: [String?]) -> [UInt8] {
        var result: [UInt8] = []
        var titleIndex = 0
        for start in stride(from: 0, to: audio.count, by: interval) {
            result += audio[start..<min(start + interval, audio.count)]
            guard start + interval <= audio.count else { break }
            let title = titleIndex < titles.count ? titles[titleIndex] : nil
            titleIndex += 1
            guard let title else {
                result.append(0)
                continue
            }
            var block = Array("StreamTitle='\(title)';StreamUrl='http://radio.example/';".utf8)
            block += [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
            result.append(UInt8(block.count / 16))
            result += block
        }
        return result
    }

    @Test("audio comes out whole and titles come out in order, whatever the chunking", arguments: [1, 7, 100, 4096])
    func demux(chunk: Int) {
        let audio = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let titles: [String?] = ["One", nil, "Two - It's; odd';", "Drei – Ünïcödé"]
        let input = Self.stream(audio: audio, interval: 8000, titles: titles)
        var demuxer = ICYDemuxer(interval: 8000)
        var output: [UInt8] = []
        var found: [StreamMetadata] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
        defer { buffer.deallocate() }
        for start in stride(from: 0, to: input.count, by: chunk) {
            let slice = Array(input[start..<min(start + chunk, input.count)])
            let count = slice.withUnsafeBytes { demuxer.process($0, audio: buffer) { found.append($0) } }
            output += buffer.prefix(count)
        }
        #expect(output == audio)
        #expect(found.map(\.title) == ["One", "Two - It's; odd';", "Drei – Ünïcödé"])
        #expect(found.allSatisfy { $0.url == "http://radio.example/" })
    }

    @Test func parsing() {
        #expect(StreamMetadata(icyBlock: Array("StreamTitle='A - B';".utf8) + [0, 0]) == StreamMetadata(title: "A - B"))
        #expect(StreamMetadata(icyBlock: Array("StreamTitle='';".utf8))?.title == "")
        #expect(StreamMetadata(icyBlock: Array("nothing here".utf8)) == nil)
        #expect(StreamMetadata(icyBlock: [0x53, 0x74, 0x72, 0x65, 0x61, 0x6D, 0x54, 0x69, 0x74, 0x6C, 0x65, 0x3D, 0x27, 0xE9, 0x27, 0x3B])?.title == "é",
                "Latin-1 when not UTF-8")
        #expect(StreamMetadata(icyBlock: Array("StreamTitle='unterminated".utf8))?.title == "unterminated")
    }
}
