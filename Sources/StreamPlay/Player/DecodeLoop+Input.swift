// The input that reads what a location stands for (see `PlaybackSourceResolver`).

extension DecodeLoop {
    /// Starts the input for `source`: libcurl for URLs, a file reader for paths, the segment
    /// reader for HLS.
    func makeInput(for source: PlaybackSource) -> any InputSource {
        let wake = self.wake
        let inputControl = InputControl { wake.signal() }
        let onReconnect: @Sendable () -> Void = { [weak self] in self?.reconnects.add(1, ordering: .relaxed) }
        switch source {
        case .media(.remote(let url)):
            // Straight to the player, not through the outbox: the input thread's own event.
            let notifyPlayer = playback.notifyPlayer
            return CurlInputSource(url: url, ring: ring, control: inputControl, configuration: configuration,
                                   urlRefresher: urlRefresher, onReconnect: onReconnect,
                                   onMetadata: { metadata in notifyPlayer(.metadata(metadata)) })
        case .media(.file(let path)):
            return FileInputSource(path: path, ring: ring, control: inputControl)
        case .hls(let url, let playlist):
            return HLSInputSource(playlistURL: url, playlist: playlist, ring: ring, control: inputControl,
                                  configuration: configuration, urlRefresher: urlRefresher, onReconnect: onReconnect)
        }
    }
}
