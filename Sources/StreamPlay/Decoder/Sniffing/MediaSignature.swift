/// A container or codec recognised by the signature its data starts with.
///
/// These are the formats people stream and keep besides MPEG audio. Named in errors, so that a
/// listener learns what the file is rather than that it "is not MP3".
enum MediaSignature: Equatable, Sendable, CustomStringConvertible {
    /// ISO base media (MP4, M4A, fragmented MP4 segments), with the `ftyp` major brand if any.
    case mp4(brand: String?)
    /// AAC in ADTS frames.
    case adts
    /// Ogg, with the codec of its first logical stream when the first page shows it.
    case ogg(codec: String?)
    case flac
    /// MPEG transport stream (188-byte packets).
    case mpegTS
    case wav
    case aiff
    /// Matroska or WebM.
    case matroska

    var description: String {
        switch self {
        case .mp4(let brand?): "MP4 (brand \(brand))"
        case .mp4(nil): "MP4"
        case .adts: "AAC (ADTS)"
        case .ogg(let codec?): "Ogg \(codec)"
        case .ogg(nil): "Ogg"
        case .flac: "FLAC"
        case .mpegTS: "MPEG-TS"
        case .wav: "WAV"
        case .aiff: "AIFF"
        case .matroska: "Matroska/WebM"
        }
    }

    /// Bytes a signature needs at most to be recognised (an MPEG-TS packet and the next sync
    /// byte, the longest). Fewer, from a complete input, are judged as they are.
    static let lookahead = 189

    /// The signature at the start of `bytes`, if it is one of these.
    static func recognise(_ bytes: UnsafeRawBufferPointer) -> MediaSignature? {
        func ascii(_ range: Range<Int>) -> String? {
            guard range.upperBound <= bytes.count else { return nil }
            return String(decoding: bytes[range], as: UTF8.self)
        }
        switch ascii(0..<4) {
        case "fLaC": return .flac
        case "OggS": return .ogg(codec: oggCodec(bytes))
        case "RIFF" where ascii(8..<12) == "WAVE": return .wav
        case "FORM" where ascii(8..<12) == "AIFF" || ascii(8..<12) == "AIFC": return .aiff
        default: break
        }
        if bytes.count >= 4, bytes[0] == 0x1A, bytes[1] == 0x45, bytes[2] == 0xDF, bytes[3] == 0xA3 {
            return .matroska
        }
        if let box = ascii(4..<8), isoBoxTypes.contains(box) {
            let size = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            // A box size of 0 (to the end) or 1 (64-bit size follows) is valid too.
            if size == 0 || size == 1 || size >= 8 {
                let brand = box == "ftyp" ? ascii(8..<12).map { $0.filter { $0 != "\0" }.trimmingWhitespace() } : nil
                return .mp4(brand: brand?.isEmpty == true ? nil : brand)
            }
        }
        if bytes.count >= 189, bytes[0] == 0x47, bytes[188] == 0x47,
           bytes.count < 377 || bytes[376] == 0x47 {
            return .mpegTS
        }
        return nil
    }

    /// Boxes an ISO media file or segment starts with.
    private static let isoBoxTypes: Set<String> = ["ftyp", "styp", "moov", "moof", "sidx", "mdat", "free", "skip", "wide"]

    /// The codec of an Ogg stream's first packet, from its identification header.
    private static func oggCodec(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count > 27 else { return nil }
        let start = 27 + Int(bytes[26])
        guard bytes.count >= start + 8 else { return nil }
        let head = Array(bytes[start..<(start + 8)])
        if head == Array("OpusHead".utf8) { return "Opus" }
        if head.starts(with: [0x01] + Array("vorbis".utf8)) { return "Vorbis" }
        if head.starts(with: [0x7F] + Array("FLAC".utf8)) { return "FLAC" }
        if head == Array("Speex   ".utf8) { return "Speex" }
        return nil
    }
}
