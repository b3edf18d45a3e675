import CPulse
#if canImport(Glibc)
import Glibc
#endif

// The reconnect after the sound server went away mid-play: the sink's own state (under the
// mainloop lock, in PulseAudioSink.swift), carried through a new connection and stream.

extension PulseAudioSink {
    /// The server went away (`error`): connects again within the reconnect timeout, makes a
    /// stream of the same format, uncorks it if it was playing, and writes what the old server
    /// had not played. A server lost again during that rewrite is waited for in the same way,
    /// and gets what it did not play of the rewrite and the rest of it. A server lost more than
    /// ``lossesTolerated`` times with none of the sink's audio played in between fails the
    /// play. Returns early, having done nothing more, when interrupted; what was still to be
    /// written again is then kept for the next reconnect.
    /// Only this sink's stream is dropped: the shared connection is replaced by the first of
    /// its sinks that finds it failed, and the others wait for that one.
    /// - Throws: `error`'s kind, naming the wait, when the server does not come back in time,
    ///   or is lost once too often with nothing played in between.
    func reconnect(after error: PlayerError) throws(PlayerError) {
        pa_threaded_mainloop_lock(mainloop)
        guard reconnectTimeout > 0, let lostFormat = format ?? formatWhileAway else {
            pa_threaded_mainloop_unlock(mainloop)
            throw error
        }
        var unplayed = dropLostStreamLocked(format: lostFormat, rewriting: [])
        pa_threaded_mainloop_unlock(mainloop)
        defer {
            pa_threaded_mainloop_lock(mainloop)
            unplayedFramesWhileAway = nil
            pa_threaded_mainloop_unlock(mainloop)
        }
        try checkLossesTolerated(after: error)
        var lastError = error
        while true {
            guard try openAgain(format: lostFormat, after: lastError) else {
                keepForNextReconnect(unplayed)
                return
            }
            var written = 0
            do throws(PlayerError) {
                try unplayed.withPlayerBytes { bytes throws(PlayerError) in
                    try write(bytes, offset: &written, isCallersAudio: false)
                }
                return
            } catch {
                lastError = error
                pa_threaded_mainloop_lock(mainloop)
                unplayed = dropLostStreamLocked(format: lostFormat, rewriting: unplayed[written...])
                pa_threaded_mainloop_unlock(mainloop)
                try checkLossesTolerated(after: error)
            }
        }
    }

    /// How many times in a row the server may be lost with none of the sink's audio played in
    /// between (a paused play plays none). Each loss after the first is a server that came
    /// back, took a stream and went away again: one that does so again and again is failing,
    /// not restarting, and the play fails rather than wait on it for ever. The count is the
    /// sink's, not one reconnect's: a paused stream may take all that was written again and
    /// then hold the caller's next write, where the next loss starts a reconnect of its own.
    static let lossesTolerated = 5

    /// Counts a loss of the server; throws `soundServerUnavailable` when it is one more than
    /// ``lossesTolerated`` with nothing played since the first.
    private func checkLossesTolerated(after error: PlayerError) throws(PlayerError) {
        pa_threaded_mainloop_lock(mainloop)
        lossesUnheard += 1
        let losses = lossesUnheard
        pa_threaded_mainloop_unlock(mainloop)
        guard losses > Self.lossesTolerated else { return }
        throw .soundServerUnavailable(reason: "\(serverDescription) went away \(losses) times "
            + "with nothing played in between (\(error))")
    }

    /// Keeps `unplayed` as the history of a stream that played none of it, for the reconnect
    /// that the next write makes after an interrupted one.
    private func keepForNextReconnect(_ unplayed: [UInt8]) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        history.removeAll()
        unplayed.withUnsafeBytes { history.append($0) }
        latencyBytesAtWrite = unplayed.count
        lastWrite = .now
    }

    /// Drops the stream of a server that went away and returns what it had not played,
    /// followed by `rest`, the part of an earlier server's unplayed audio not written to it
    /// yet; until a stream plays again, that stands for the latency (the position holds where
    /// the sound stopped). The stream's history held only what was written to it, so a server
    /// lost during a rewrite gives back at most the rewrite.
    private func dropLostStreamLocked(format lostFormat: AudioFormat, rewriting rest: ArraySlice<UInt8>) -> [UInt8] {
        formatWhileAway = lostFormat
        let playedSeconds = corked || streamStalled ? 0 : (ContinuousClock.now - lastWrite).inSeconds
        let unplayed = history.suffix(PlaybackHistory.unplayedBytes(
            latencyBytes: latencyBytesAtWrite, playedSeconds: playedSeconds,
            bytesPerSecond: lostFormat.sampleRate * lostFormat.bytesPerFrame,
            bytesPerFrame: lostFormat.bytesPerFrame, held: history.count)) + rest
        closeStreamLocked()
        // The named sink may be what went away, with the connection still up: it is looked
        // for again before the new stream, which PipeWire would otherwise play elsewhere.
        checkedGeneration = nil
        unplayedFramesWhileAway = unplayed.count / lostFormat.bytesPerFrame
        return unplayed
    }

    /// Opens a stream of `format` again, trying until the reconnect timeout has passed, and
    /// uncorks it if the caller's last word was to play. Returns false, having opened nothing
    /// more, when interrupted.
    /// - Throws: `soundServerUnavailable`, naming the wait and `lastError`, when the server
    ///   is not back in time.
    private func openAgain(format: AudioFormat, after lastError: PlayerError) throws(PlayerError) -> Bool {
        // On the real clock, not `PlayerConfiguration.clock`: that one times the input, which a
        // test scripts; the sound server's return is a real process's, timed as it happens.
        let deadline = ContinuousClock.now + .seconds(reconnectTimeout)
        var last = lastError
        while true {
            if interrupted.load(ordering: .acquiring) { return false }
            do throws(PlayerError) {
                // A server back but not answering, or answering only the process's other
                // streams, gets no longer than the reconnect has left, though enough for a
                // server that answers to be heard.
                let left = max((deadline - .now).inSeconds, 0.5)
                try open(format: format, within: min(connectTimeout, left), atMost: left)
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
            stallWatch.noteProgress(at: pa_rtclock_now())
            unrefOperation(pa_stream_cork(stream, 0, nil, nil))
        }
        pa_threaded_mainloop_unlock(mainloop)
        return true
    }
}
