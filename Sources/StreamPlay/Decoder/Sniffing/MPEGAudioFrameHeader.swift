/// The four-byte header of an MPEG audio frame (MPEG-1, 2 and 2.5; Layers I, II and III).
///
/// Enough of it to find the next frame: a chain of frames whose headers agree is the evidence
/// that bytes are MPEG audio, where one sync word is not (11 set bits turn up in any data).
struct MPEGAudioFrameHeader: Equatable, Sendable {
    enum Version: Equatable, Sendable { case mpeg1, mpeg2, mpeg25 }

    let version: Version
    /// 1, 2 or 3.
    let layer: Int
    let bitrateKbps: Int
    let sampleRate: Int
    let padding: Bool
    /// Mono when the channel mode is 3.
    let isMono: Bool

    /// Parses the header at the start of `bytes`; `nil` when those bytes are not a valid
    /// header (reserved version, layer, rate or emphasis, free-format or invalid bitrate).
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = (bytes[1] >> 3) & 0x03
        let layerBits = (bytes[1] >> 1) & 0x03
        let bitrateIndex = Int(bytes[2] >> 4)
        let rateIndex = Int((bytes[2] >> 2) & 0x03)
        guard versionBits != 1, layerBits != 0, (1...14).contains(bitrateIndex), rateIndex < 3,
              bytes[3] & 0x03 != 2 else { return nil }
        version = versionBits == 3 ? .mpeg1 : (versionBits == 2 ? .mpeg2 : .mpeg25)
        layer = 4 - Int(layerBits)
        let table: [Int] = switch (version, layer) {
        case (.mpeg1, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (.mpeg1, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (.mpeg1, _): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (_, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        bitrateKbps = table[bitrateIndex]
        let divisor = switch version { case .mpeg1: 1; case .mpeg2: 2; case .mpeg25: 4 }
        sampleRate = [44100, 48000, 32000][rateIndex] / divisor
        padding = (bytes[2] >> 1) & 0x01 == 1
        isMono = bytes[3] >> 6 == 3
    }

    /// Bytes in the whole frame, header included.
    var frameLength: Int {
        let bitsPerSecond = bitrateKbps * 1000
        switch layer {
        case 1:
            return (12 * bitsPerSecond / sampleRate + (padding ? 1 : 0)) * 4
        case 3 where version != .mpeg1:
            return 72 * bitsPerSecond / sampleRate + (padding ? 1 : 0)
        default:
            return 144 * bitsPerSecond / sampleRate + (padding ? 1 : 0)
        }
    }

    /// The length of the frame at the start of `bytes` when it is a Layer III frame that holds a
    /// Xing, Info or VBRI header: a frame of silence that describes the stream it starts (its
    /// frame count, its encoder delay and padding), not audio.
    static func headerFrameLength(atStartOf bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 40, let header = MPEGAudioFrameHeader(bytes), header.layer == 3 else { return nil }
        let xingOffset = 4 + (header.version == .mpeg1 ? (header.isMono ? 17 : 32) : (header.isMono ? 9 : 17))
        let tag = String(decoding: bytes[xingOffset..<(xingOffset + 4)], as: UTF8.self)
        let vbri = String(decoding: bytes[36..<40], as: UTF8.self)
        guard tag == "Xing" || tag == "Info" || vbri == "VBRI" else { return nil }
        return header.frameLength
    }

    /// Whether `next` can follow this frame in one stream: the same version, layer and rate.
    func agrees(with next: MPEGAudioFrameHeader) -> Bool {
        version == next.version && layer == next.layer && sampleRate == next.sampleRate
    }
}
