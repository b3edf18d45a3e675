/// Reads what an ID3v2 tag (versions 2.2, 2.3 and 2.4) says about the track: title, artist,
/// album, track number and cover picture, and its ReplayGain values.
///
/// Only the frames that name the track are read (`TIT2`, `TPE1`, `TALB`, `TRCK` and `APIC`, and
/// `TT2`, `TP1`, `TAL`, `TRK` and `PIC` in 2.2), and the `TXXX` (`TXX`) frames whose description
/// is a `replaygain_*` key; everything else is skipped. The bytes may be
/// only the start of the tag (a big tag is skipped, not held, and its size comes from the
/// network): frames cut off at the end are ignored. Malformed input yields what could be read,
/// never a crash.
enum ID3TagReader {
    /// What the tag at the start of `bytes` says, or `nil` when it names nothing and states no
    /// ReplayGain.
    static func read(_ bytes: some Collection<UInt8>) -> StreamMetadata? {
        let tag = Array(bytes)
        guard tag.count >= 10, tag[0] == 0x49, tag[1] == 0x44, tag[2] == 0x33 else { return nil } // "ID3"
        let version = tag[3]
        let flags = tag[5]
        guard (2...4).contains(version) else { return nil }
        let declared = syncsafe(tag, at: 6)
        var body = Array(tag[10..<min(tag.count, 10 + declared)])
        // Tag-wide unsynchronisation (2.2 and 2.3): every 0xFF 0x00 stands for 0xFF.
        if flags & 0x80 != 0 && version < 4 { body = removingUnsynchronisation(body) }
        var offset = 0
        if flags & 0x40 != 0 && version >= 3 {
            // The extended header: its size counts itself in 2.4, not in 2.3.
            guard body.count >= 4 else { return nil }
            offset = version == 4 ? syncsafe(body, at: 0) : 4 + bigEndian(body, at: 0)
        }
        var names = StreamMetadata(title: nil)
        var frontCover = false
        var userText: [String: String] = [:]
        let idLength = version == 2 ? 3 : 4
        let headerLength = version == 2 ? 6 : 10
        while offset + headerLength <= body.count {
            let id = String(decoding: body[offset..<offset + idLength], as: UTF8.self)
            guard id.utf8.first.map({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) == true else { break }
            let size = switch version {
            case 2: (Int(body[offset + 3]) << 16) | (Int(body[offset + 4]) << 8) | Int(body[offset + 5])
            case 3: bigEndian(body, at: offset + 4)
            default: syncsafe(body, at: offset + 4)
            }
            let start = offset + headerLength
            guard size > 0, size <= body.count - start else { break }
            offset = start + size
            guard let frame = frameBody(body[start..<start + size], version: version,
                                        flags: version == 2 ? 0 : Int(body[start - 1])) else { continue }
            switch id {
            case "TIT2", "TT2": names.title = text(frame)
            case "TPE1", "TP1": names.artist = text(frame)
            case "TALB", "TAL": names.album = text(frame)
            case "TRCK", "TRK": names.trackNumber = text(frame).flatMap { StreamMetadata.trackNumber(from: $0) }
            case "APIC", "PIC":
                // The front cover (type 3) wins; otherwise the first picture.
                guard !frontCover, let (picture, type) = picture(frame, version: version) else { break }
                if names.artwork == nil || type == 3 {
                    names.artwork = picture
                    frontCover = type == 3
                }
            case "TXXX", "TXX":
                if let (key, value) = userDefinedText(frame), key.hasPrefix("replaygain_") { userText[key] = value }
            default: break
            }
        }
        names.replayGainValues = ReplayGainValues(source: .id3v2) { userText[$0] }
        return names.isEmpty && names.replayGainValues == nil ? nil : names
    }

    /// A frame's content, undone of 2.4's per-frame unsynchronisation and data length
    /// indicator; `nil` for a compressed or encrypted frame (2.3: 0x80, 0x40; 2.4: 0x08, 0x04),
    /// which is not read.
    private static func frameBody(_ frame: ArraySlice<UInt8>, version: UInt8, flags: Int) -> ArraySlice<UInt8>? {
        switch version {
        case 3:
            return flags & 0xC0 != 0 ? nil : frame
        case 4:
            if flags & 0x0C != 0 { return nil }
            var content = frame
            if flags & 0x01 != 0 { content = content.dropFirst(4) }
            return flags & 0x02 != 0 ? removingUnsynchronisation(Array(content))[...] : content
        default:
            return frame
        }
    }

    /// A picture frame: an encoding byte, the MIME type (2.3, 2.4: NUL-terminated Latin-1; 2.2:
    /// three letters), the picture type, a description in the encoding, then the picture.
    private static func picture(_ frame: ArraySlice<UInt8>, version: UInt8) -> (Artwork, UInt8)? {
        guard let encoding = frame.first else { return nil }
        var index = frame.startIndex + 1
        let mimeType: String
        if version == 2 {
            guard frame.endIndex - index >= 3 else { return nil }
            mimeType = String(decoding: frame[index..<index + 3], as: UTF8.self)
            index += 3
        } else {
            guard let end = frame[index...].firstIndex(of: 0) else { return nil }
            mimeType = String(decoding: frame[index..<end], as: UTF8.self)
            index = end + 1
        }
        guard index < frame.endIndex else { return nil }
        let type = frame[index]
        index += 1
        // The description ends at a NUL: two zero bytes, aligned, in UTF-16.
        if encoding == 1 || encoding == 2 {
            while index + 1 < frame.endIndex, frame[index] != 0 || frame[index + 1] != 0 { index += 2 }
            index += 2
        } else {
            guard let end = frame[index...].firstIndex(of: 0) else { return nil }
            index = end + 1
        }
        guard index < frame.endIndex, let artwork = Artwork(data: Array(frame[index...]), mimeType: mimeType) else { return nil }
        return (artwork, type)
    }

    /// A `TXXX` frame: an encoding byte, a description and a value, each ending at a NUL in that
    /// encoding. The description comes back in lower case (taggers write `REPLAYGAIN_TRACK_GAIN`
    /// and `replaygain_track_gain` alike).
    static func userDefinedText(_ frame: ArraySlice<UInt8>) -> (String, String)? {
        guard let encoding = frame.first else { return nil }
        let wide = encoding == 1 || encoding == 2
        var index = frame.startIndex + 1
        while index < frame.endIndex {
            if wide {
                guard index + 1 < frame.endIndex else { return nil }
                if frame[index] == 0 && frame[index + 1] == 0 { break }
                index += 2
            } else {
                if frame[index] == 0 { break }
                index += 1
            }
        }
        guard index < frame.endIndex else { return nil }
        let descriptionEnd = index
        index += wide ? 2 : 1
        // Each part is decoded as a text frame of its own: the encoding byte, then the text.
        let descriptionBytes = [encoding] + frame[(frame.startIndex + 1)..<descriptionEnd]
        guard let description = text(descriptionBytes[...]), index <= frame.endIndex else { return nil }
        let valueBytes = [encoding] + frame[min(index, frame.endIndex)...]
        guard let value = text(valueBytes[...]) else { return nil }
        return (description.lowercased(), value)
    }

    /// A text frame's first value: an encoding byte, then Latin-1, UTF-16 (with a byte-order
    /// mark), UTF-16BE or UTF-8, ending at a NUL or the frame's end. Empty text is `nil`.
    static func text(_ frame: ArraySlice<UInt8>) -> String? {
        guard let encoding = frame.first else { return nil }
        let payload = Array(frame.dropFirst())
        let value: String
        switch encoding {
        case 0:
            value = String(payload.prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) })
        case 1, 2:
            var bigEndian = encoding == 2
            var units: [UInt16] = []
            var index = 0
            if encoding == 1, payload.count >= 2 {
                if payload[0] == 0xFF && payload[1] == 0xFE { index = 2 }
                else if payload[0] == 0xFE && payload[1] == 0xFF { index = 2; bigEndian = true }
            }
            while index + 1 < payload.count {
                let unit = bigEndian ? UInt16(payload[index]) << 8 | UInt16(payload[index + 1])
                    : UInt16(payload[index + 1]) << 8 | UInt16(payload[index])
                if unit == 0 { break }
                units.append(unit)
                index += 2
            }
            value = String(decoding: units, as: UTF16.self)
        case 3:
            value = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
        default:
            return nil
        }
        let trimmed = value.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func syncsafe(_ bytes: [UInt8], at index: Int) -> Int {
        guard index + 4 <= bytes.count else { return 0 }
        return bytes[index..<index + 4].reduce(0) { ($0 << 7) | Int($1 & 0x7F) }
    }

    private static func bigEndian(_ bytes: [UInt8], at index: Int) -> Int {
        guard index + 4 <= bytes.count else { return 0 }
        return bytes[index..<index + 4].reduce(0) { ($0 << 8) | Int($1) }
    }

    private static func removingUnsynchronisation(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0x00) { result.append(byte) }
            previous = byte
        }
        return result
    }
}
