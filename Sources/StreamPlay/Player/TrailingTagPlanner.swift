/// Whether a track's names are looked for in an ID3v1 tag at its end, and where the tag is read.
///
/// ID3v1 belongs to MP3 files, and can only fill gaps in what the ID3v2 tag in front and the
/// container's tags said (as ffmpeg's MP3 demuxer reasons), so it is looked for only in MPEG
/// audio with a name missing. A file's last bytes are read at once; over HTTP they cost a Range
/// request, so only a server that takes Range requests and gave the resource's length is
/// asked. An HLS stream has no end to read. A pure decision, tested on its own;
/// ``TrackNamesReporter`` carries the plan out.
enum TrailingTagPlanner {
    /// Where the tag is read from.
    enum Plan: Sendable, Equatable {
        /// Not looked for: the names go out as they are.
        case none
        /// The file's last bytes.
        case file(path: String)
        /// A Range request for the last bytes of the resource at `url`, `totalLength` long.
        case range(url: String, totalLength: Int)
    }

    /// - Parameters:
    ///   - names: the names gathered from the tags read so far.
    ///   - isMPEGAudio: the decoder reads MPEG audio (``AudioDecoder/searchesForFrames``).
    ///   - location: what the input reads, `nil` for an HLS stream.
    ///   - rangeLength: the resource's length, when its server takes Range requests.
    static func plan(names: StreamMetadata, isMPEGAudio: Bool, location: MediaLocation?, rangeLength: Int?) -> Plan {
        let missingName = names.title == nil || names.artist == nil || names.album == nil || names.trackNumber == nil
        guard isMPEGAudio, missingName, let location else { return .none }
        switch location {
        case .file(let path):
            return .file(path: path)
        case .remote(let url):
            guard let rangeLength, rangeLength >= ID3v1TagReader.tagSize else { return .none }
            return .range(url: url, totalLength: rangeLength)
        }
    }
}
