/// A picture a track's tags carry: its cover, as the file holds it (PNG or JPEG bytes, not
/// decoded).
///
/// Read from an ID3v2 `APIC` frame, an MP4 `covr` atom, a FLAC `PICTURE` block or whatever else
/// FFmpeg exposes as an attached picture. The front cover is preferred when a tag holds several.
/// Pictures larger than ``maximumSize`` are not kept, so a tag from the network cannot make the
/// player hold an unbounded picture.
public struct Artwork: Sendable, Equatable {
    /// The picture's bytes, as stored in the tag.
    public let data: [UInt8]
    /// Its MIME type, such as `image/jpeg` or `image/png`.
    public let mimeType: String

    /// The largest picture kept, in bytes.
    public static let maximumSize = 1024 * 1024

    /// Creates artwork; `nil` when `data` is empty or larger than ``maximumSize``.
    public init?(data: [UInt8], mimeType: String) {
        guard !data.isEmpty, data.count <= Self.maximumSize else { return nil }
        self.data = data
        self.mimeType = Self.normalised(mimeType, data: data)
    }

    /// The usual file name extension for the picture's type (`jpg`, `png`, `gif`, `webp`, or
    /// `img` when unknown).
    public var fileExtension: String {
        switch mimeType {
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "image/gif": "gif"
        case "image/webp": "webp"
        default: "img"
        }
    }

    /// ID3v2.2 names the format in three letters (`JPG`, `PNG`), and taggers write `image/jpg`
    /// or nothing at all: the type is taken from the bytes' signature when they have one.
    private static func normalised(_ declared: String, data: [UInt8]) -> String {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        let lowered = declared.lowercased()
        return switch lowered {
        case "jpg", "image/jpg": "image/jpeg"
        case "png": "image/png"
        default: lowered.isEmpty ? "application/octet-stream" : lowered
        }
    }
}
