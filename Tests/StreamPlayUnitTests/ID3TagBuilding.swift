/// Builds ID3v2 tags byte by byte for the reader's tests: a frame's header for versions 2.2
/// (three-byte sizes), 2.3 (plain 32-bit sizes) and 2.4 (syncsafe sizes), and a tag around frames.
protocol ID3TagBuilding {}

extension ID3TagBuilding {
    /// One frame: its id, its size as `version` writes it, its flags (2.3 and 2.4), `payload`.
    func frame(_ id: String, _ payload: [UInt8], version: UInt8, flags: UInt8 = 0) -> [UInt8] {
        let size = payload.count
        if version == 2 {
            return Array(id.utf8) + [UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + payload
        }
        let sizeBytes: [UInt8] = version == 4
            ? [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
            : [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return Array(id.utf8) + sizeBytes + [0, flags] + payload
    }

    /// A tag of `version` holding `frames`, with no flags.
    func tag(version: UInt8, _ frames: [UInt8]) -> [UInt8] {
        let size = frames.count
        return Array("ID3".utf8) + [version, 0, 0]
            + [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)] + frames
    }
}
