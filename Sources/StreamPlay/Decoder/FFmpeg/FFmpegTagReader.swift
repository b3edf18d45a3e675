import CFFmpeg

/// Reads a container's tags through libavformat, once its header is read: what
/// ``FFmpegDecoder`` reports as the track's metadata. Runs on the decoder thread, which owns the
/// format context.
enum FFmpegTagReader {
    /// Title, artist, album and track number from the container's tags, or the audio stream's
    /// (Ogg keeps its Vorbis comments there), and the cover from an attached picture. Keys are
    /// matched without case, as tag formats differ.
    static func read(_ context: UnsafeMutablePointer<AVFormatContext>,
                     audio stream: UnsafeMutablePointer<AVStream>) -> StreamMetadata? {
        func value(_ key: String) -> String? {
            for dictionary in [context.pointee.metadata, stream.pointee.metadata] {
                if let entry = sp_av_dict_get(dictionary, key, nil, 0), let text = entry.pointee.value {
                    let value = String(cString: text).trimmingWhitespace()
                    if !value.isEmpty { return String(value) }
                }
            }
            return nil
        }
        let names = StreamMetadata(title: value("title"), artist: value("artist"), album: value("album"),
                                   trackNumber: value("track").flatMap { StreamMetadata.trackNumber(from: $0) },
                                   artwork: attachedPicture(in: context))
        return names.isEmpty ? nil : names
    }

    /// The picture a container attaches to the track (MP4 `covr`, FLAC `PICTURE`, an ID3v2
    /// `APIC`): FFmpeg reads it with the header into a stream of its own, as one packet. The
    /// front cover wins when there are several.
    private static func attachedPicture(in context: UnsafeMutablePointer<AVFormatContext>) -> Artwork? {
        var found: Artwork?
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index],
                  stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                  let data = stream.pointee.attached_pic.data, stream.pointee.attached_pic.size > 0 else { continue }
            let mimeType = switch stream.pointee.codecpar.pointee.codec_id {
            case AV_CODEC_ID_MJPEG: "image/jpeg"
            case AV_CODEC_ID_PNG: "image/png"
            case AV_CODEC_ID_GIF: "image/gif"
            case AV_CODEC_ID_WEBP: "image/webp"
            default: ""
            }
            guard let picture = Artwork(data: Array(UnsafeBufferPointer(start: data, count: Int(stream.pointee.attached_pic.size))),
                                        mimeType: mimeType) else { continue }
            let comment = sp_av_dict_get(stream.pointee.metadata, "comment", nil, 0).map { String(cString: $0.pointee.value) }
            if comment == "Cover (front)" { return picture }
            if found == nil { found = picture }
        }
        return found
    }
}
