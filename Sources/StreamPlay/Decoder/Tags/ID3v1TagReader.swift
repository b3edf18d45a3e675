/// Reads the ID3v1 tag in the last 128 bytes of an MP3 (title, artist, album and ID3v1.1's track
/// number), and the 227-byte enhanced `TAG+` block in front of it when there is one.
///
/// ID3v1 fields are fixed-size Latin-1 padded with NULs or spaces; `TAG+` carries the next 60
/// characters of the title, artist and album. The year, comment and genre are not read: the
/// engine reports none of them. Malformed input yields what could be read, never a crash.
enum ID3v1TagReader {
    /// The size of an ID3v1 tag, at the very end of the file.
    static let tagSize = 128
    /// The size of the enhanced `TAG+` block, just before the ID3v1 tag.
    static let enhancedSize = 227
    /// How many bytes at the end of a file hold both: what a reader fetches.
    static let trailerSize = tagSize + enhancedSize

    /// What the ID3v1 tag at the end of `bytes` says, or `nil` when there is no tag or it names
    /// nothing. `bytes` are the file's last bytes (up to ``trailerSize``; 128 are enough for
    /// ID3v1 alone).
    static func read(_ bytes: some Collection<UInt8>) -> StreamMetadata? {
        let trailer = Array(bytes)
        guard trailer.count >= tagSize else { return nil }
        let tag = trailer[(trailer.count - tagSize)...]
        let start = tag.startIndex
        guard tag[start] == 0x54, tag[start + 1] == 0x41, tag[start + 2] == 0x47 else { return nil } // "TAG"
        var title = field(tag, at: start + 3, length: 30)
        var artist = field(tag, at: start + 33, length: 30)
        var album = field(tag, at: start + 63, length: 30)
        // ID3v1.1: a zero byte before the comment's last byte makes that byte the track number.
        let track: Int? = tag[start + 125] == 0 && tag[start + 126] != 0 ? Int(tag[start + 126]) : nil
        if trailer.count >= trailerSize {
            let enhanced = trailer[(trailer.count - trailerSize)...].prefix(enhancedSize)
            let base = enhanced.startIndex
            if enhanced[base] == 0x54, enhanced[base + 1] == 0x41, enhanced[base + 2] == 0x47, enhanced[base + 3] == 0x2B { // "TAG+"
                title = joined(title, field(enhanced, at: base + 4, length: 60))
                artist = joined(artist, field(enhanced, at: base + 64, length: 60))
                album = joined(album, field(enhanced, at: base + 124, length: 60))
            }
        }
        let names = StreamMetadata(title: trimmed(title), artist: trimmed(artist), album: trimmed(album), trackNumber: track)
        return names.isEmpty ? nil : names
    }

    /// A fixed-size Latin-1 field up to its first NUL, untrimmed (a `TAG+` field continues it).
    private static func field(_ bytes: ArraySlice<UInt8>, at index: Int, length: Int) -> String {
        String(bytes[index..<index + length].prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) })
    }

    /// The ID3v1 part and its `TAG+` continuation, which counts only when the first part fills
    /// all its 30 characters (a shorter name ended there).
    private static func joined(_ first: String, _ rest: String) -> String {
        first.unicodeScalars.count == 30 ? first + rest : first
    }

    private static func trimmed(_ text: String) -> String? {
        let value = text.trimmingWhitespace()
        return value.isEmpty ? nil : value
    }
}
