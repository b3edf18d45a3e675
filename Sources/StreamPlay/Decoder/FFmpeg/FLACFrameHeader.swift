// FLAC's frame headers, read straight from the bytes: where a frame starts and which sample it
// starts at, so that a seek in a FLAC without a seek table can search by itself (see
// FLACSeekSearch). Pure functions of bytes; no FFmpeg.

/// The stream's STREAMINFO block: what every frame header is checked against.
struct FLACStreamInfo: Equatable, Sendable {
    var minimumBlockSize: Int
    var maximumBlockSize: Int
    /// The largest frame in bytes; 0 when the encoder did not know it.
    var maximumFrameSize: Int
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// 0 when the encoder did not know it.
    var totalSamples: Int

    /// Reads the 34 bytes of a STREAMINFO block, with or without the `fLaC` marker and block
    /// header in front (FFmpeg's extradata holds either).
    init?(_ bytes: [UInt8]) {
        var block = bytes[...]
        if block.count >= 42, block.starts(with: Array("fLaC".utf8)) { block = block.dropFirst(8) }
        guard block.count >= 34 else { return nil }
        let b = Array(block.prefix(18))
        minimumBlockSize = Int(b[0]) << 8 | Int(b[1])
        maximumBlockSize = Int(b[2]) << 8 | Int(b[3])
        maximumFrameSize = Int(b[7]) << 16 | Int(b[8]) << 8 | Int(b[9])
        sampleRate = Int(b[10]) << 12 | Int(b[11]) << 4 | Int(b[12]) >> 4
        channels = Int((b[12] >> 1) & 0x07) + 1
        bitsPerSample = (Int(b[12] & 0x01) << 4 | Int(b[13] >> 4)) + 1
        totalSamples = Int(b[13] & 0x0F) << 32 | Int(b[14]) << 24 | Int(b[15]) << 16 | Int(b[16]) << 8 | Int(b[17])
        guard minimumBlockSize >= 16, maximumBlockSize >= minimumBlockSize, sampleRate > 0 else { return nil }
    }

    /// Whether every frame but the last holds `maximumBlockSize` samples: its frame headers
    /// then count frames, not samples.
    var hasFixedBlockSize: Bool { minimumBlockSize == maximumBlockSize }
}

/// One frame header: the frame's first sample and its length in samples.
struct FLACFrameHeader: Equatable, Sendable {
    /// The stream sample the frame starts at.
    var firstSample: Int
    var blockSize: Int

    init(firstSample: Int, blockSize: Int) {
        self.firstSample = firstSample
        self.blockSize = blockSize
    }

    /// The header at `index` of `bytes`, if one is there: the sync code, no reserved value,
    /// the stream's channel count, rate and sample size where the header names them, and a
    /// matching CRC-8.
    init?(_ bytes: UnsafeRawBufferPointer, at index: Int, streamInfo: FLACStreamInfo) {
        // The shortest header: 4 fixed bytes, 1 of coded number, the CRC.
        guard index >= 0, bytes.count - index >= 6 else { return nil }
        func byte(_ offset: Int) -> Int { Int(bytes[index + offset]) }
        guard byte(0) == 0xFF, byte(1) & 0xFE == 0xF8 else { return nil }
        let variableBlockSize = byte(1) & 0x01 == 1
        let blockSizeCode = byte(2) >> 4, rateCode = byte(2) & 0x0F
        let channelCode = byte(3) >> 4, sizeCode = (byte(3) >> 1) & 0x07
        guard blockSizeCode != 0, rateCode != 15, channelCode <= 10, sizeCode != 3, byte(3) & 0x01 == 0 else { return nil }
        let channels = channelCode < 8 ? channelCode + 1 : 2
        guard channels == streamInfo.channels else { return nil }
        if let bits = Self.sampleSizes[sizeCode], bits != streamInfo.bitsPerSample { return nil }
        if let rate = Self.sampleRates[rateCode], rate != streamInfo.sampleRate { return nil }

        // The frame or sample number, coded as UTF-8 is (up to 36 bits in 7 bytes).
        let lead = byte(4)
        let extra: Int
        var number: Int
        switch lead {
        case 0x00..<0x80: extra = 0; number = lead
        case 0xC0..<0xE0: extra = 1; number = lead & 0x1F
        case 0xE0..<0xF0: extra = 2; number = lead & 0x0F
        case 0xF0..<0xF8: extra = 3; number = lead & 0x07
        case 0xF8..<0xFC: extra = 4; number = lead & 0x03
        case 0xFC..<0xFE: extra = 5; number = lead & 0x01
        case 0xFE: extra = 6; number = 0
        default: return nil
        }
        var length = 5 + extra
        guard bytes.count - index >= length + 1 else { return nil }
        for offset in 5..<length {
            guard byte(offset) & 0xC0 == 0x80 else { return nil }
            number = number << 6 | byte(offset) & 0x3F
        }
        guard variableBlockSize || extra <= 5 else { return nil }

        switch blockSizeCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << (blockSizeCode - 2)
        case 6: length += 1; guard bytes.count - index > length else { return nil }; blockSize = byte(length - 1) + 1
        case 7:
            length += 2; guard bytes.count - index > length else { return nil }
            blockSize = (byte(length - 2) << 8 | byte(length - 1)) + 1
        default: blockSize = 256 << (blockSizeCode - 8)
        }
        switch rateCode {
        case 12:
            length += 1; guard bytes.count - index > length else { return nil }
            guard byte(length - 1) * 1000 == streamInfo.sampleRate else { return nil }
        case 13, 14:
            length += 2; guard bytes.count - index > length else { return nil }
            let value = byte(length - 2) << 8 | byte(length - 1)
            guard value * (rateCode == 13 ? 1 : 10) == streamInfo.sampleRate else { return nil }
        default: break
        }
        guard blockSize <= streamInfo.maximumBlockSize,
              Self.crc8(bytes, from: index, count: length) == byte(length) else { return nil }
        firstSample = variableBlockSize ? number : number * (streamInfo.hasFixedBlockSize ? streamInfo.maximumBlockSize : blockSize)
    }

    /// The frames that start in `bytes` (which begin at resource offset `offset`), in order:
    /// each a header that the next one confirms, by starting where it ends in samples. The
    /// last header of the window has no successor to confirm it and is left out, so a window
    /// shorter than two frames finds nothing.
    static func frames(in bytes: UnsafeRawBufferPointer, at offset: Int,
                       streamInfo: FLACStreamInfo) -> [(offset: Int, header: FLACFrameHeader)] {
        var candidates: [(offset: Int, header: FLACFrameHeader)] = []
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] & 0xFE == 0xF8,
               let header = FLACFrameHeader(bytes, at: index, streamInfo: streamInfo) {
                candidates.append((offset + index, header))
            }
            index += 1
        }
        // A candidate is a frame when a later candidate starts at its end in samples; a false
        // sync inside a frame's data is skipped over that way.
        // (By the last offset each first sample is seen at: one pass, however many candidates.)
        var lastOffsetOfSample: [Int: Int] = [:]
        for candidate in candidates { lastOffsetOfSample[candidate.header.firstSample] = candidate.offset }
        return candidates.filter { candidate in
            let end = candidate.header.firstSample + candidate.header.blockSize
            return lastOffsetOfSample[end].map { $0 > candidate.offset } ?? false
        }
    }

    /// Sample sizes by header code; `nil` for "as STREAMINFO says" (and the reserved code 3).
    private static let sampleSizes: [Int?] = [nil, 8, 12, nil, 16, 20, 24, 32]
    /// Sample rates by header code; `nil` where the rate is said elsewhere (codes 0, 12 to 14).
    private static let sampleRates: [Int?] = [
        nil, 88_200, 176_400, 192_000, 8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000,
        nil, nil, nil,
    ]

    /// CRC-8 with polynomial x^8 + x^2 + x + 1, as the header's last byte holds it.
    private static func crc8(_ bytes: UnsafeRawBufferPointer, from index: Int, count: Int) -> Int {
        var crc: UInt8 = 0
        for offset in index..<(index + count) {
            crc ^= bytes[offset]
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return Int(crc)
    }
}
