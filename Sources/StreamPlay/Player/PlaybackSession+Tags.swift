// The track's names, gathered from every tag the file has and reported as one event: the ID3v2
// tag in front (read while sniffing), the container's tags (FFmpeg), and an MP3's ID3v1 tag at
// its end; with them, the ReplayGain the decoder applies.

extension PlaybackSession {
    /// Reports the track's names once its first audio is decoded: the ID3v2 tag's fields win,
    /// the container's tags and then an MP3's ID3v1 tag fill the gaps. Decoder thread.
    ///
    /// An ID3v1 tag is looked for only while a name is missing (it can only fill gaps, as
    /// ffmpeg's MP3 demuxer reasons). Over HTTP it costs a Range request, which runs on a thread
    /// of its own: the first audio never waits for a tag, and the one event comes when the
    /// request is answered (at most ``TrailingBytesReader/timeout`` later), before the track's end.
    func reportTags(decoder: any AudioDecoder, state: DecodeState) {
        var names = (state.feed.heldTags ?? StreamMetadata(title: nil)).filling(from: decoder.tags)
        state.feed.heldTags = nil
        if let gain = decoder.replayGain {
            names.replayGain = gain
            logger.debug("replaygain", metadata: ["source": "\(gain.source.rawValue)", "scope": "\(gain.scope.rawValue)",
                                                  "gain": "\(gain.appliedGain) dB"])
        }
        // ID3v1 belongs to MP3 files; mpg123 skips the tag's bytes at the end of the stream.
        let missingName = names.title == nil || names.artist == nil || names.album == nil || names.trackNumber == nil
        guard decoder.searchesForFrames, missingName else { return reportNames(names) }
        switch playingSource {
        case .media(.file(let path))?:
            let trailer = TrailingBytesReader.file(path, count: ID3v1TagReader.trailerSize)
            reportNames(names.filling(from: trailer.flatMap(ID3v1TagReader.read)))
        case .media(.remote(let url))?:
            guard let info = input.control.info, info.supportsRanges, let total = info.totalLength,
                  total >= ID3v1TagReader.tagSize else { return reportNames(names) }
            let front = names
            state.trailingTagReader?.join()
            // Joined before the track's end is reported (decodeLoop), so the event never
            // follows the end.
            state.trailingTagReader = EngineThread(name: "sp-id3v1") { [self] in
                let stopped = { self.isStopRequested }
                let trailer = TrailingBytesReader.remote(url, totalLength: total, count: ID3v1TagReader.trailerSize,
                                                         configuration: configuration, wakeUp: tagReaderWakeUp,
                                                         shouldStop: stopped)
                guard !stopped() else { return }
                reportNames(front.filling(from: trailer.flatMap(ID3v1TagReader.read)))
            }
        case .hls?, nil:
            reportNames(names)
        }
    }

    private func reportNames(_ names: StreamMetadata) {
        if !names.isEmpty || names.replayGain != nil { report(.metadata(names)) }
    }
}
