import CPulse
#if canImport(Glibc)
import Glibc
#endif

// The reconnect after the sound server went away mid-play: the sink's own state (under the
// mainloop lock, in PulseAudioSink.swift), carried through a new connection and stream.

extension PulseAudioSink {
    /// The server went away (`error`): connects again within the reconnect timeout, makes a
    /// stream of the same format, uncorks it if it was playing, and writes what the old server
    /// had not played. Returns early, having done nothing more, when interrupted. Only this
    /// sink's stream is dropped: the shared connection is replaced by the first of its sinks
    /// that finds it failed, and the others wait for that one.
    /// - Throws: `error`'s kind, naming the wait, when the server does not come back in time.
    func reconnect(after error: PlayerError) throws(PlayerError) {
        pa_threaded_mainloop_lock(mainloop)
        guard reconnectTimeout > 0, let lostFormat = format ?? formatWhileAway else {
            pa_threaded_mainloop_unlock(mainloop)
            throw error
        }
        formatWhileAway = lostFormat
        let wasCorked = corked
        let playedSeconds = wasCorked ? 0 : (ContinuousClock.now - lastWrite).inSeconds
        let unplayed = history.suffix(PlaybackHistory.unplayedBytes(
            latencyBytes: latencyBytesAtWrite, playedSeconds: playedSeconds,
            bytesPerSecond: lostFormat.sampleRate * lostFormat.bytesPerFrame,
            bytesPerFrame: lostFormat.bytesPerFrame, held: history.count))
        closeStreamLocked()
        // The named sink may be what went away, with the connection still up: it is looked
        // for again before the new stream, which PipeWire would otherwise play elsewhere.
        checkedGeneration = nil
        unplayedFramesWhileAway = unplayed.count / lostFormat.bytesPerFrame
        pa_threaded_mainloop_unlock(mainloop)
        defer {
            pa_threaded_mainloop_lock(mainloop)
            unplayedFramesWhileAway = nil
            pa_threaded_mainloop_unlock(mainloop)
        }

        // On the real clock, not `PlayerConfiguration.clock`: that one times the input, which a
        // test scripts; the sound server's return is a real process's, timed as it happens.
        let deadline = ContinuousClock.now + .seconds(reconnectTimeout)
        var last = error
        while true {
            if interrupted.load(ordering: .acquiring) { return }
            do throws(PlayerError) {
                // A server back but not answering, or answering only the process's other
                // streams, gets no longer than the reconnect has left, though enough for a
                // server that answers to be heard.
                let left = max((deadline - .now).inSeconds, 0.5)
                try open(format: lostFormat, within: min(connectTimeout, left), atMost: left)
                break
            } catch {
                last = error
            }
            if ContinuousClock.now >= deadline {
                throw .soundServerUnavailable(
                    reason: "\(serverDescription) went away and was not back within \(reconnectTimeout) s (\(last))")
            }
            usleep(100_000)
        }
        // Uncorked first: what was unplayed can exceed what a corked stream takes. (A play
        // paused, before or during the outage, stays corked, and the write waits for the
        // resume, as any write while paused.) Under the lock that the caller's start and pause
        // take: neither can come in between.
        pa_threaded_mainloop_lock(mainloop)
        formatWhileAway = nil
        if runRequested, let stream, corked, pa_stream_get_state(stream) == PA_STREAM_READY {
            corked = false
            unrefOperation(pa_stream_cork(stream, 0, nil, nil))
        }
        pa_threaded_mainloop_unlock(mainloop)
        var written = 0
        try unplayed.withPlayerBytes { bytes throws(PlayerError) in
            try write(bytes, offset: &written, isCallersAudio: false)
        }
    }
}
