import Testing
@testable import StreamPlay

/// Frames and headers built by hand, so that each case says exactly what the sniffer sees.
enum SniffSamples {
    /// An MPEG-1 Layer III frame at 128 kbit/s, 44.1 kHz: 417 bytes (418 with padding).
    static func mp3Frame(padding: Bool = false) -> [UInt8] {
        [0xFF, 0xFB, padding ? 0x92 : 0x90, 0x40] + [UInt8](repeating: 0x55, count: padding ? 414 : 413)
    }

    static func mp3Frames(_ count: Int) -> [UInt8] {
        (0..<count).flatMap { mp3Frame(padding: $0 % 3 == 2) }
    }

    /// An ADTS frame of AAC-LC, 44.1 kHz stereo, `length` bytes in all.
    static func adtsFrame(length: Int = 371) -> [UInt8] {
        let header: [UInt8] = [
            0xFF, 0xF1, 0x50, 0x80 | UInt8((length >> 11) & 0x03), UInt8((length >> 3) & 0xFF),
            UInt8((length & 0x07) << 5) | 0x1F, 0xFC,
        ]
        return header + [UInt8](repeating: 0x21, count: length - header.count)
    }

    static func id3Tag(bodySize: Int) -> [UInt8] {
        let size: [UInt8] = [21, 14, 7, 0].map { UInt8((bodySize >> $0) & 0x7F) }
        return Array("ID3".utf8) + [4, 0, 0] + size + [UInt8](repeating: 0, count: bodySize)
    }

    /// The start of an M4A as ffmpeg writes it, with a false MPEG sync word close behind.
    static let m4aHead: [UInt8] = [0, 0, 0, 0x20] + Array("ftypM4A ".utf8) + [0, 0, 2, 0]
        + Array("M4A isomiso2".utf8) + [0, 0, 0, 8] + Array("free".utf8) + [0xFF, 0xFB, 0x90, 0x40]
        + [UInt8](repeating: 0x13, count: 400)

    static func verdict(_ bytes: [UInt8], complete: Bool = false) -> ContentSniffer.Verdict {
        bytes.withUnsafeBytes { ContentSniffer.sniff($0, isComplete: complete) }
    }
}

@Suite("Content sniffing")
struct ContentSnifferTests {
    typealias S = SniffSamples

    @Test("a chain of agreeing MPEG frames is MPEG audio; junk before them is skipped")
    func mpegChain() {
        #expect(S.verdict(S.mp3Frames(4)) == .decided(.mpegAudio(offset: 0)))
        let junk = [UInt8](repeating: 0x41, count: 100)
        #expect(S.verdict(junk + S.mp3Frames(5)) == .decided(.mpegAudio(offset: 100)))
    }

    @Test("fewer frames than a chain wait for more, unless the input is complete")
    func shortInputs() {
        #expect(S.verdict(S.mp3Frames(3)) == .needMore)
        #expect(S.verdict(S.mp3Frames(2), complete: true) == .decided(.mpegAudio(offset: 0)))
        #expect(S.verdict(S.mp3Frames(1), complete: true) == .unrecognised)
        #expect(S.verdict([0xFF, 0xFB]) == .needMore)
        #expect(S.verdict([], complete: true) == .unrecognised)
    }

    static func restAudioStart(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { ContentSniffer.audioStart(inRest: $0) }
    }

    @Test("a decoder's undecoded rest holds audio from its first chain, past a tag and an Info frame in front")
    func restWithAudio() {
        var info = S.mp3Frame()
        info.replaceSubrange(36..<40, with: Array("Info".utf8))
        #expect(Self.restAudioStart(S.mp3Frames(4)) == 0)
        #expect(Self.restAudioStart(S.mp3Frames(2)) == 0, "a short rest ending on a frame boundary is audio")
        #expect(Self.restAudioStart([UInt8](repeating: 0x41, count: 30) + S.mp3Frames(4)) == 30)
        #expect(Self.restAudioStart(info + S.mp3Frames(3)) == 417, "the next part's Info frame is skipped")
        let tag = S.id3Tag(bodySize: 50)
        #expect(Self.restAudioStart(tag + info + S.mp3Frames(3)) == tag.count + 417)
        #expect(Self.restAudioStart(S.mp3Frames(4) + Self.id3v1) == 0)
    }

    /// An ID3v1 tag: "TAG" and 125 bytes of fields.
    static let id3v1 = Array("TAG".utf8) + Array("Title".utf8) + [UInt8](repeating: 0, count: 120)

    @Test("a rest of a trailing ID3v1 or APE tag, junk, one frame or nothing holds no audio: the track ends")
    func restWithoutAudio() {
        #expect(Self.restAudioStart(Self.id3v1) == nil)
        let ape = Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0, 0x30, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x80]
            + [UInt8](repeating: 0, count: 8)
        #expect(Self.restAudioStart(ape + Self.id3v1) == nil)
        #expect(Self.restAudioStart([UInt8](repeating: 0xFF, count: 600)) == nil)
        #expect(Self.restAudioStart(S.mp3Frames(1)) == nil)
        #expect(Self.restAudioStart(S.adtsFrame() + S.adtsFrame() + S.adtsFrame()) == nil, "AAC is not the MPEG decoder's")
        #expect(Self.restAudioStart(S.id3Tag(bodySize: 20)) == nil)
        #expect(Self.restAudioStart([]) == nil)
    }

    @Test("one sync word is not evidence: an M4A with a false MPEG sync is MP4")
    func falseSync() {
        #expect(S.verdict(S.m4aHead) == .decided(.foreign(.mp4(brand: "M4A"))))
        // The same false header amid other bytes is nothing at all.
        let noise = [UInt8](repeating: 0x13, count: 300) + [0xFF, 0xFB, 0x90, 0x40] + [UInt8](repeating: 0x13, count: 900)
        #expect(S.verdict(noise, complete: true) == .unrecognised)
    }

    @Test("a chain of ADTS frames is AAC, never MPEG audio")
    func adts() {
        let frames = (0..<3).flatMap { _ in S.adtsFrame() }
        #expect(S.verdict(frames) == .decided(.foreign(.adts)))
        #expect(S.verdict([UInt8](repeating: 0, count: 37) + frames + frames) == .decided(.foreign(.adts)))
    }

    @Test("an ID3v2 tag comes first, with its size; what follows is judged after it")
    func id3() {
        #expect(S.verdict(S.id3Tag(bodySize: 300) + S.mp3Frames(4)) == .decided(.id3v2Tag(size: 310)))
        #expect(S.verdict(S.id3Tag(bodySize: 1_000_000)) == .decided(.id3v2Tag(size: 1_000_010)))
        // Not a valid size (a byte with its top bit set): not a tag.
        #expect(S.verdict(Array("ID3".utf8) + [4, 0, 0, 0x80, 0, 0, 0] + S.mp3Frames(4)) == .decided(.mpegAudio(offset: 10)))
    }

    static let signatureCases: [([UInt8], MediaSignature)] = {
        let zero: [UInt8] = [0, 0, 0, 0]
        var cases: [([UInt8], MediaSignature)] = []
        cases.append((Array("fLaC".utf8) + [0, 0, 0, 34], .flac))
        cases.append((Array("RIFF".utf8) + zero + Array("WAVEfmt ".utf8), .wav))
        cases.append((Array("FORM".utf8) + zero + Array("AIFFCOMM".utf8), .aiff))
        cases.append(([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42], .matroska))
        cases.append(([0, 0, 0, 0x18] + Array("stypmsdh".utf8) + zero, .mp4(brand: nil)))
        return cases
    }()

    @Test("containers are named by their signature", arguments: signatureCases)
    func signatures(bytes: [UInt8], expected: MediaSignature) {
        #expect(S.verdict(bytes + [UInt8](repeating: 0, count: 200)) == .decided(.foreign(expected)))
    }

    @Test("Ogg names its codec from the first page")
    func ogg() {
        func page(_ packet: [UInt8]) -> [UInt8] {
            Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 20) + [1, UInt8(packet.count)] + packet
        }
        #expect(S.verdict(page(Array("OpusHead".utf8) + [1, 2, 0, 0])) == .decided(.foreign(.ogg(codec: "Opus"))))
        #expect(S.verdict(page([1] + Array("vorbis".utf8) + [0, 0, 0])) == .decided(.foreign(.ogg(codec: "Vorbis"))))
        #expect(S.verdict(Array("OggS".utf8) + [0, 2, 0, 0, 0, 0]) == .decided(.foreign(.ogg(codec: nil))))
        #expect(MediaSignature.ogg(codec: "Opus").description == "Ogg Opus")
    }

    @Test("MPEG-TS is a sync byte every 188 bytes")
    func transportStream() {
        var packets = [UInt8](repeating: 0xFF, count: 188 * 3)
        for start in stride(from: 0, to: packets.count, by: 188) { packets[start] = 0x47 }
        #expect(S.verdict(packets) == .decided(.foreign(.mpegTS)))
        packets[376] = 0
        #expect(S.verdict(packets, complete: true) != .decided(.foreign(.mpegTS)))
    }

    @Test("text where audio should be is named by how it starts")
    func text() {
        #expect(S.verdict(Array("\u{FEFF}  <!DOCTYPE html><html>".utf8)) == .decided(.text("<!doctype")))
        #expect(S.verdict(Array("#EXTM3U\n#EXTINF:-1,Radio\nhttp://x/".utf8)) == .decided(.text("#extm3u")))
        #expect(S.verdict(Array("{\"error\": \"nope\"}".utf8)) == .decided(.text("{\"")))
    }
}

@Suite("Frame headers")
struct FrameHeaderTests {
    func header(_ bytes: [UInt8]) -> MPEGAudioFrameHeader? {
        bytes.withUnsafeBytes { MPEGAudioFrameHeader($0) }
    }

    @Test("frame lengths follow the layer, version and padding")
    func lengths() throws {
        #expect(try #require(header([0xFF, 0xFB, 0x90, 0x40])).frameLength == 417)   // MPEG-1 L3 128k 44.1k
        #expect(try #require(header([0xFF, 0xFB, 0x92, 0x40])).frameLength == 418)   // padded
        #expect(try #require(header([0xFF, 0xF3, 0x82, 0xC4])).frameLength == 209)   // MPEG-2 L3 64k 22.05k, padded
        #expect(try #require(header([0xFF, 0xFD, 0xA4, 0x00])).frameLength == 576)   // MPEG-1 L2 192k 48k
        #expect(try #require(header([0xFF, 0xFF, 0xC0, 0x00])).frameLength == 416)   // MPEG-1 L1 384k 44.1k
        #expect(try #require(header([0xFF, 0xE3, 0x18, 0xC4])).sampleRate == 8000)   // MPEG-2.5
    }

    static let reservedHeaders: [[UInt8]] = [
        [0xFF, 0xEB, 0x90, 0x40],  // reserved version
        [0xFF, 0xF9, 0x90, 0x40],  // layer 0 (ADTS, not MPEG audio)
        [0xFF, 0xFB, 0x00, 0x40],  // free format
        [0xFF, 0xFB, 0xF0, 0x40],  // bad bitrate
        [0xFF, 0xFB, 0x9C, 0x40],  // reserved rate
        [0xFF, 0xFB, 0x90, 0x42],  // reserved emphasis
    ]

    @Test("reserved values are no header", arguments: reservedHeaders)
    func reserved(bytes: [UInt8]) {
        #expect(header(bytes) == nil)
    }

    @Test("an ADTS header gives its frame length and refuses a bad rate")
    func adts() throws {
        let frame = SniffSamples.adtsFrame(length: 371)
        let parsed = try #require(frame.withUnsafeBytes { ADTSFrameHeader($0) })
        #expect(parsed.frameLength == 371)
        #expect(parsed.sampleRateIndex == 4)
        #expect(parsed.channelConfiguration == 2)
        var bad = frame
        bad[2] = 0x50 | (13 << 2)
        #expect(bad.withUnsafeBytes { ADTSFrameHeader($0) } == nil)
    }
}
