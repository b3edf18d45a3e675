import Synchronization

extension TrailingBytesReader {
    /// The last `count` bytes of the resource at `url`, `totalLength` bytes long, by a Range
    /// request on `transport` (a ``PlayerConfiguration/mediaTransport`` of the caller's own);
    /// `nil` when the answer is not exactly that range, as for the ``CurlLoop``'s.
    /// Blocks the calling thread for at most ``timeout`` seconds of `clock` (the player's
    /// ``PlayerConfiguration/clock``, as the transport's other transfers are timed by); the
    /// transfer's news and `shouldStop` are looked at about every 50 ms.
    static func remote(_ url: String, totalLength: Int, count: Int, transport: any MediaTransport,
                       headers: [String: String], clock: any PlaybackClock,
                       shouldStop: () -> Bool) -> [UInt8]? {
        let wanted = min(count, totalLength)
        guard wanted > 0 else { return nil }
        let collector = TrailingBytesCollector(wanted: wanted)
        let request = MediaRequest(url: url, rangeStart: totalLength - wanted,
                                   headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }))
        // Timed from before the request, so that no one who sees it can move the clock first.
        let deadline = clock.now + .milliseconds(Int(timeout * 1000))
        let control = transport.startTransfer(request, receiver: collector)
        while true {
            let state = collector.state.withEngineLock { $0 }
            if let end = state.end {
                guard end == .completed, state.status == 206, state.bytes.count == wanted else { return nil }
                return state.bytes
            }
            if state.overflowed || shouldStop() || clock.now >= deadline {
                control.cancel()
                return nil
            }
            collector.wake.wait(timeout: 0.05)
        }
    }
}

/// Gathers the answer to a trailing-bytes request on a ``MediaTransport``; more than asked for
/// (a server that ignored the range) pauses it, and the reader gives up.
private final class TrailingBytesCollector: MediaTransferReceiver {
    struct State {
        var status = 0
        var bytes: [UInt8] = []
        var overflowed = false
        var end: MediaTransferEnd?
    }

    let wanted: Int
    let state = Mutex(State())
    let wake = ThreadSignal()

    init(wanted: Int) {
        self.wanted = wanted
    }

    func receiveHead(_ head: MediaResponseHead) {
        state.withEngineLock { $0.status = head.status }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> MediaBodyAnswer {
        let fits = state.withEngineLock { state in
            guard state.bytes.count + bytes.count <= wanted else {
                state.overflowed = true
                return false
            }
            state.bytes.append(contentsOf: bytes)
            return true
        }
        if !fits { wake.signal() }
        return fits ? .take : .pause
    }

    func receiveEnd(_ end: MediaTransferEnd) {
        state.withEngineLock { $0.end = end }
        wake.signal()
    }
}
