// When an activated session's first audio is heard: the moment a gapless hand-off is announced.

extension PlaybackSession {
    /// Reports ``Report/firstAudioHeard`` once the sink has played past everything queued
    /// before this session's first frame, then ends. Runs on its own thread from
    /// ``activate()`` until then or until the stop.
    ///
    /// A thread of its own, because the decoder thread spends that time blocked in the sink's
    /// write, which returns only when the server asks for more: with a one-second queue, a
    /// quarter of a second at a time. This one sleeps until the tail ahead of this session
    /// should have played, then looks again, so the report comes within a few milliseconds of
    /// the join being heard. While paused the tail does not shrink, and it looks every 50 ms.
    func watchFirstAudio() {
        while !isStopRequested {
            guard attached.load(ordering: .acquiring), timeline.hasWritten,
                  let tail = secondsBeforeFirstAudio else {
                firstAudioWake.wait(timeout: 0.01)
                continue
            }
            if tail <= 0 {
                report(.firstAudioHeard)
                return
            }
            firstAudioWake.wait(timeout: min(tail, 0.05))
        }
    }
}
