import StreamPlay

/// The audio (or artwork) of an upload: a file, streamed from disk while sending, or bytes.
public enum SoundCloudUploadAsset: Sendable, Equatable {
    /// A file at `path`; `filename` defaults to its last path component, the content type to
    /// one guessed from the extension.
    case file(path: String, filename: String? = nil, contentType: String? = nil)
    /// Bytes sent as a file named `filename`.
    case data([UInt8], filename: String, contentType: String? = nil)

    /// The file name the server is told.
    public var filename: String {
        switch self {
        case .file(let path, let filename, _): filename ?? String(path.split(separator: "/").last ?? "upload")
        case .data(_, let filename, _): filename
        }
    }

    /// The multipart part of this asset under the field `name`.
    func part(name: String) -> MultipartForm.Part {
        switch self {
        case .file(let path, _, let contentType):
            .file(name: name, path: path, filename: filename, contentType: contentType ?? Self.contentType(of: filename))
        case .data(let bytes, let filename, let contentType):
            .data(name: name, bytes: bytes, filename: filename, contentType: contentType ?? Self.contentType(of: filename))
        }
    }

    /// A content type for a file name's extension.
    static func contentType(of filename: String) -> String {
        let suffix = filename.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch suffix {
        case "mp3": return "audio/mpeg"
        case "wav": return "audio/wav"
        case "aif", "aiff": return "audio/aiff"
        case "flac": return "audio/flac"
        case "ogg", "oga", "opus": return "audio/ogg"
        case "m4a", "mp4", "aac": return "audio/mp4"
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        default: return "application/octet-stream"
        }
    }
}
