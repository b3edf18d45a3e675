// The track's names, gathered from every tag the file has and reported as one event: the ID3v2
// tag in front (read while sniffing), the container's tags (FFmpeg), and an MP3's ID3v1 tag at
// its end.

extension PlaybackSession {
    /// Reports the track's names once its first audio is decoded: the ID3v2 tag's fields win,
    /// the container's tags and then an MP3's ID3v1 tag fill the gaps. Decoder thread.
    func reportTags(decoder: any AudioDecoder, state: inout DecodeState) {
        var names = state.heldTags ?? StreamMetadata(title: nil)
        names = names.filling(from: decoder.tags)
        // ID3v1 belongs to MP3 files; mpg123 skips the tag's bytes at the end of the stream.
        if decoder.searchesForFrames, let trailer = trailingBytes() {
            names = names.filling(from: ID3v1TagReader.read(trailer))
        }
        state.heldTags = nil
        if !names.isEmpty { report(.metadata(names)) }
    }

    /// The last bytes of what plays, where an ID3v1 tag sits: read from a file, or by a small
    /// Range request when the server said the resource's length and takes ranges. `nil` for a
    /// stream without either (a radio, a server that cannot seek): it has no ID3v1 to offer.
    private func trailingBytes() -> [UInt8]? {
        switch playingSource {
        case .media(.file(let path))?:
            return TrailingBytesReader.file(path, count: ID3v1TagReader.trailerSize)
        case .media(.remote(let url))?:
            guard let info = input.control.info, info.supportsRanges, let total = info.totalLength,
                  total >= ID3v1TagReader.tagSize else { return nil }
            return TrailingBytesReader.remote(url, totalLength: total, count: ID3v1TagReader.trailerSize,
                                              configuration: configuration) { [self] in
                commands.withEngineLock { $0.stopRequested }
            }
        case .hls?, nil:
            return nil
        }
    }
}
