import Synchronization

/// Reports ``PlaybackSession/Report/firstAudioHeard`` once an activated play's first audio is
/// heard: the sink has played past everything queued before its first frame (the tail of the
/// track that handed the sink over). The moment a gapless hand-off is announced.
///
/// A thread of its own (`sp-first-audio`), because the decoder thread spends that time blocked
/// in the sink's write, which returns only when the server asks for more: with a one-second
/// queue, a quarter of a second at a time. This one sleeps until the tail ahead of the play
/// should have played, then looks again, so the report comes within a few milliseconds of the
/// join being heard. While paused the tail does not shrink, and it looks every 50 ms.
final class FirstAudioWatch: Sendable {
    private let playback: PlaybackControl
    private let trackOutput: TrackOutput
    private let thread = Mutex<EngineThread?>(nil)
    private let wakeUp = ThreadSignal()

    init(playback: PlaybackControl, trackOutput: TrackOutput) {
        self.playback = playback
        self.trackOutput = trackOutput
    }

    /// Starts watching, once, unless the play was stopped.
    func start() {
        thread.withEngineLock { thread in
            guard thread == nil, !playback.isStopRequested else { return }
            thread = EngineThread(name: "sp-first-audio") { [self] in watch() }
        }
    }

    /// Ends the watch of a stopped play and waits for its thread.
    func stop() {
        wakeUp.signal()
        thread.withEngineLock { $0 }?.join()
    }

    private func watch() {
        while !playback.isStopRequested {
            guard trackOutput.attached.load(ordering: .acquiring), trackOutput.timeline.hasWritten,
                  let tail = trackOutput.secondsBeforeFirstAudio else {
                wakeUp.wait(timeout: 0.01)
                continue
            }
            if tail <= 0 {
                playback.report(.firstAudioHeard)
                return
            }
            wakeUp.wait(timeout: min(tail, 0.05))
        }
    }
}
