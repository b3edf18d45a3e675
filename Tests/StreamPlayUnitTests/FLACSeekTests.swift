import Testing
@testable import StreamPlay

@Suite("FLAC seeking without a seek table: frame headers and the search")
struct FLACSeekTests {
    /// The STREAMINFO of the benchmark's seek.flac (ffmpeg's encoder): 4608-sample blocks,
    /// frames of 14 to 15,372 bytes, 44.1 kHz stereo 16-bit, 600 s.
    static let streamInfoBytes: [UInt8] = hex("1200120000000e003c0c0ac442f00193bf608316d2dd6f43e96d2d3204cfca150628")
    static let info = FLACStreamInfo(streamInfoBytes)!

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// A frame header of that stream (fixed blocks, 44.1 kHz, independent stereo, 16-bit) for
    /// frame `number`, its CRC-8 computed here bit by bit. ``headerBuilderMatchesRealFrames()``
    /// checks it against headers taken from the file.
    static func header(frame number: Int) -> [UInt8] {
        var coded: [UInt8]
        switch number {
        case 0..<0x80: coded = [UInt8(number)]
        case 0x80..<0x800: coded = [0xC0 | UInt8(number >> 6), 0x80 | UInt8(number & 0x3F)]
        default: coded = [0xE0 | UInt8(number >> 12), 0x80 | UInt8((number >> 6) & 0x3F), 0x80 | UInt8(number & 0x3F)]
        }
        let bytes: [UInt8] = [0xFF, 0xF8, 0x59, 0x18] + coded
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return bytes + [crc]
    }

    static func parse(_ bytes: [UInt8], at index: Int = 0, info: FLACStreamInfo = info) -> FLACFrameHeader? {
        bytes.withUnsafeBytes { FLACFrameHeader($0, at: index, streamInfo: info) }
    }

    @Test("STREAMINFO: block and frame sizes, rate, channels, sample size and length")
    func streamInfo() {
        #expect(Self.info.minimumBlockSize == 4608 && Self.info.maximumBlockSize == 4608 && Self.info.hasFixedBlockSize)
        #expect(Self.info.maximumFrameSize == 15372)
        #expect(Self.info.sampleRate == 44100 && Self.info.channels == 2 && Self.info.bitsPerSample == 16)
        #expect(Self.info.totalSamples == 600 * 44100)
        let marked = Array("fLaC".utf8) + [0x80, 0, 0, 34] + Self.streamInfoBytes
        #expect(FLACStreamInfo(marked) == Self.info, "with the marker and block header in front")
        #expect(FLACStreamInfo(Array(Self.streamInfoBytes.prefix(20))) == nil, "cut short")
    }

    @Test("frame headers taken from the file: frame numbers of 1, 2 and 3 bytes, counted in blocks")
    func realHeaders() {
        #expect(Self.parse(Self.hex("fff85918006b")) == FLACFrameHeader(firstSample: 0, blockSize: 4608))
        #expect(Self.parse(Self.hex("fff85918c38875")) == FLACFrameHeader(firstSample: 200 * 4608, blockSize: 4608))
        // Mid/side stereo (channel code 10) is still two channels.
        #expect(Self.parse(Self.hex("fff859a8e0aeb8db")) == FLACFrameHeader(firstSample: 3000 * 4608, blockSize: 4608))
        #expect(Self.parse([0, 0] + Self.hex("fff85918006b"), at: 2) == FLACFrameHeader(firstSample: 0, blockSize: 4608))
    }

    @Test("the test's header builder writes the file's headers")
    func headerBuilderMatchesRealFrames() {
        #expect(Self.header(frame: 0) == Self.hex("fff85918006b"))
        #expect(Self.header(frame: 200) == Self.hex("fff85918c38875"))
    }

    @Test("a header is refused for a wrong CRC, a reserved value, or a stream it does not belong to")
    func refusals() {
        var damaged = Self.header(frame: 200)
        damaged[damaged.count - 1] ^= 0x01
        #expect(Self.parse(damaged) == nil, "CRC-8")
        var reserved = Self.header(frame: 200)
        reserved[3] |= 0x01
        #expect(Self.parse(reserved) == nil, "the reserved bit")
        var mono = Self.info
        mono.channels = 1
        #expect(Self.parse(Self.header(frame: 200), info: mono) == nil, "two channels in a mono stream")
        var rate = Self.info
        rate.sampleRate = 48000
        #expect(Self.parse(Self.header(frame: 200), info: rate) == nil, "44.1 kHz in a 48 kHz stream")
        #expect(Self.parse(Array(Self.header(frame: 200).dropLast())) == nil, "cut before its CRC")
        #expect(Self.parse([0xFF, 0xF9, 0x59, 0x18, 0x80, 0x00, 0x00]) == nil, "a continuation byte as the number's first")
    }

    @Test("frames in a read: each confirmed by the next one's first sample, a false sync skipped, the last left out")
    func framesInRead() {
        // A false sync: a valid header for frame 7, inside frame 200's data.
        let falseSync = Self.header(frame: 7)
        let bytes = Self.header(frame: 200) + [UInt8](repeating: 0x11, count: 40) + falseSync + [UInt8](repeating: 0x22, count: 40)
            + Self.header(frame: 201) + [UInt8](repeating: 0x33, count: 80)
            + Self.header(frame: 202) + [UInt8](repeating: 0x44, count: 10)
        let frames = bytes.withUnsafeBytes { FLACFrameHeader.frames(in: $0, at: 1000, streamInfo: Self.info) }
        #expect(frames.map(\.offset) == [1000, 1000 + 7 + 40 + 6 + 40])
        #expect(frames.map(\.header.firstSample) == [200 * 4608, 201 * 4608])
    }

    /// A stream model like the benchmark's file: `silent` frames of 14 bytes, then frames of
    /// 6,000 bytes, all of 4608 samples.
    struct Stream {
        var frames: [FLACSeekSearch.Frame] = []
        var length: Int
        init(silent: Int, loud: Int) {
            var offset = 8256
            for number in 0..<(silent + loud) {
                frames.append(.init(offset: offset, sample: number * 4608))
                offset += number < silent ? 14 : 6000
            }
            length = offset
        }

        /// What a read of `window` bytes at `offset` shows: the frames that start in it and
        /// whose successor's header (6 bytes) is in it too.
        func read(at offset: Int, window: Int) -> [FLACSeekSearch.Frame] {
            frames.indices.filter { index in
                let frame = frames[index]
                guard frame.offset >= offset, frame.offset < offset + window else { return false }
                let next = index + 1 < frames.count ? frames[index + 1].offset : length
                return index + 1 < frames.count && next + 6 <= offset + window
            }.map { frames[$0] }
        }

        /// Runs a search to `target` from the first frame.
        func search(to target: Int, window: Int = 30_808) -> (FLACSeekSearch, ok: Bool) {
            var search = FLACSeekSearch(target: target, lower: frames[0], upperOffset: length,
                                        upperSample: frames.count * 4608, closeEnough: 22050, window: window)
            while let offset = search.nextRead() {
                guard search.record(frames: read(at: offset, window: window), readAt: offset) else { return (search, false) }
            }
            return (search, true)
        }
    }

    @Test("the search lands at or before the target, within half a second of it, in few reads, on a file silent for its first half",
          arguments: [0.2, 30, 299.9, 300, 300.05, 301, 450, 599])
    func searchLands(seconds: Double) {
        let stream = Stream(silent: 2871, loud: 2871)
        let target = Int(seconds * 44100)
        let (search, ok) = stream.search(to: target)
        #expect(ok && search.isSettled)
        #expect(search.landing.sample <= target)
        #expect(target - search.landing.sample <= 22050, "landed at \(search.landing.sample) for \(target)")
        #expect(stream.frames.contains(search.landing), "the landing is a frame")
        // Bisection every other read at worst: about twice log2(26 MB / 30 KB), plus the last read.
        #expect(search.reads <= 22, "\(search.reads) reads")
    }

    @Test("a bracket narrower than a read is finished with one read from the landing on")
    func lastRead() {
        let stream = Stream(silent: 0, loud: 40)
        // The target lies in frame 20; its bound is the frame after it.
        var search = FLACSeekSearch(target: 20 * 4608 + 4000, lower: stream.frames[18],
                                    upperOffset: stream.frames[21].offset, upperSample: 21 * 4608,
                                    closeEnough: 100, window: 30_000)
        let offset = search.nextRead()
        #expect(offset == stream.frames[18].offset + 1)
        let recorded = search.record(frames: stream.read(at: offset!, window: 30_000), readAt: offset!)
        #expect(recorded)
        let next = search.nextRead()
        #expect(next == nil)
        #expect(search.landing == stream.frames[20])
    }

    @Test("a bracket with no room for another frame needs no read")
    func noRoom() {
        var search = FLACSeekSearch(target: 50_000, lower: .init(offset: 100, sample: 0),
                                    upperOffset: 101, upperSample: 4608 * 20, closeEnough: 100, window: 30_000)
        let offset = search.nextRead()
        #expect(offset == nil)
        #expect(search.landing == .init(offset: 100, sample: 0))
    }

    @Test("a search stopped by the read limit short of the target is not settled (the caller falls back)")
    func readLimit() {
        let target = 1 << 40
        var search = FLACSeekSearch(target: target, lower: .init(offset: 0, sample: 0),
                                    upperOffset: 1 << 50, upperSample: 1 << 41, closeEnough: 100, window: 16)
        var reads = 0
        while let offset = search.nextRead() {
            reads += 1
            // Every read finds a frame just past the target, right at the read: the bracket
            // never holds less than half of what it did.
            let recorded = search.record(frames: [.init(offset: offset + 1, sample: target + 1)], readAt: offset)
            #expect(recorded)
        }
        #expect(reads == FLACSeekSearch.readLimit)
        #expect(!search.isSettled)
        #expect(search.landing == .init(offset: 0, sample: 0))
    }

    @Test("a read inside the bracket that finds no frame abandons the search")
    func noFrame() {
        var search = FLACSeekSearch(target: 10_000_000, lower: .init(offset: 100, sample: 0),
                                    upperOffset: 40_000_000, upperSample: 20_000_000, closeEnough: 100, window: 30_000)
        let offset = search.nextRead()!
        let recorded = search.record(frames: [], readAt: offset)
        #expect(!recorded)
    }
}
