import Synchronization

/// The track's names, gathered from every tag the file has and reported as one event: the
/// ID3v2 tag in front (read while sniffing), the container's tags (FFmpeg), and an MP3's ID3v1
/// tag at its end; with them, the ReplayGain the decoder applies.
///
/// Whether an ID3v1 tag is looked for, and where, is ``TrailingTagPlanner``'s to say. Over HTTP
/// its Range request runs on a thread of its own (`sp-id3v1`): the first audio never waits for
/// a tag, and the one event comes when the request is answered (at most
/// ``TrailingBytesReader/timeout`` later), before the track's end. The request is sent only
/// once the play's first audio is written to the sink (``allowTrailingTagRequest()``): sent as
/// the sink opened, it competed with the start for the CPU and made first audio later (see
/// Benchmarks/README.md). A preloaded next track sends it at once: its sink plays already. A
/// play that fails sends none, and one already sent is cancelled
/// (``abandonTrailingTagRequest()``): its names would come with its failure, for nothing.
final class TrackNamesReporter: Sendable {
    let playback: PlaybackControl
    let configuration: PlayerConfiguration
    /// What the thread reading an ID3v1 tag's Range request sleeps on: a stop signals it, and so
    /// do ``allowTrailingTagRequest()`` and ``abandonTrailingTagRequest()``.
    let wakeUp = WakeUpSignal()
    /// Set by ``allowTrailingTagRequest()``: the Range request may go.
    private let requestMayGo = Atomic<Bool>(false)
    /// Set by ``abandonTrailingTagRequest()``: no request goes, and one under way is cancelled.
    private let requestAbandoned = Atomic<Bool>(false)

    init(playback: PlaybackControl, configuration: PlayerConfiguration) {
        self.playback = playback
        self.configuration = configuration
    }

    /// Reports the track's names once its first audio is decoded: the ID3v2 tag's fields win,
    /// the container's tags and then an MP3's ID3v1 tag fill the gaps. `source` is what plays,
    /// `info` its input's response. Decoder thread; the ID3v1 reader is joined through `state`
    /// before the track's end is reported (see ``DecodeState/trailingTagReader``).
    func report(decoder: any AudioDecoder, state: DecodeState, source: PlaybackSource?, info: InputInfo?) {
        var names = (state.feed.heldTags ?? StreamMetadata(title: nil)).filling(from: decoder.tags)
        state.feed.heldTags = nil
        if let gain = decoder.replayGain {
            names.replayGain = gain
            configuration.logger.debug("replaygain", metadata: [
                "source": "\(gain.source.rawValue)", "scope": "\(gain.scope.rawValue)", "gain": "\(gain.appliedGain) dB",
            ])
        }
        let location: MediaLocation? = if case .media(let location)? = source { location } else { nil }
        switch TrailingTagPlanner.plan(names: names, isMPEGAudio: decoder.searchesForFrames, location: location,
                                       rangeLength: info?.supportsRanges == true ? info?.totalLength : nil) {
        case .none:
            report(names)
        case .file(let path):
            // mpg123 skips the tag's bytes at the end of the stream; they are read here.
            let trailer = TrailingBytesReader.file(path, count: ID3v1TagReader.trailerSize)
            report(names.filling(from: trailer.flatMap(ID3v1TagReader.read)))
        case .range(let url, let total):
            let front = names
            state.trailingTagReader?.join()
            state.trailingTagReader = EngineThread(name: "sp-id3v1") { [self] in
                let stopped = { self.playback.isStopRequested || self.requestAbandoned.load(ordering: .acquiring) }
                while !stopped() && !requestMayGo.load(ordering: .acquiring) {
                    _ = wakeUp.wait(timeout: .seconds(1))
                }
                guard !stopped() else { return }
                let trailer = TrailingBytesReader.remote(url, totalLength: total, count: ID3v1TagReader.trailerSize,
                                                         configuration: configuration, wakeUp: wakeUp,
                                                         shouldStop: stopped)
                guard !stopped() else { return }
                report(front.filling(from: trailer.flatMap(ID3v1TagReader.read)))
            }
        }
    }

    /// A new entry of the play (the next of a playlist's, after one that failed) begins: its tag's
    /// request waits again for its own first audio, and is not abandoned for the failure before
    /// it. Decoder thread, before the entry's turns; the last entry's reader was joined.
    func beginEntry() {
        requestMayGo.store(false, ordering: .relaxed)
        requestAbandoned.store(false, ordering: .relaxed)
    }

    /// Lets an ID3v1 tag's Range request go: the play's first audio is written to the sink, the
    /// play is a preloaded next track (whose sink plays already), or the play is over. Decoder
    /// thread; after the first call, one load of an atomic, so it may be called for every chunk.
    func allowTrailingTagRequest() {
        guard !requestMayGo.load(ordering: .relaxed) else { return }
        requestMayGo.store(true, ordering: .releasing)
        wakeUp.signal()
    }

    /// The play failed: an ID3v1 tag's Range request not sent yet is never sent, and one under
    /// way is cancelled, so that the failure is not reported later for it (names from an answer
    /// already read may still be reported, before the failure). Decoder thread.
    func abandonTrailingTagRequest() {
        requestAbandoned.store(true, ordering: .releasing)
        wakeUp.signal()
    }

    private func report(_ names: StreamMetadata) {
        if !names.isEmpty || names.replayGain != nil { playback.report(.metadata(names)) }
    }
}
