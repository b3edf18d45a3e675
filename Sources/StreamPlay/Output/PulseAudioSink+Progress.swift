import CPulse

// What the server has taken of the stream (under the mainloop lock): the latency kept for a
// reconnect's rewrite, and the watch on a stream the server stopped playing.

extension PulseAudioSink {
    /// Frames that returned writes queued and that are not heard yet: the stream's queue plus
    /// the device's own latency, interpolated between the server's timing updates, less what
    /// the server already took of a write still under way (see ``AudioSink/latencyFrames``).
    /// While the server's timing is not known (a new stream before its first timing update, or
    /// just after a flush), what was written since: none of it is known to be heard, and 0
    /// would read as a queue run dry (a rebuffer at the start, with the prebuffer still queued).
    ///
    /// Never below the latency by the server's last timing update alone (libpulse's
    /// interpolation can run ahead of a stream the server starts late); while corked, at least
    /// what is queued; while a drain is under way, at most what the `DrainCountdown` started
    /// then has left.
    public var latencyFrames: Int {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        var reported = reportedLatencyFramesLocked
        // libpulse's interpolation can go on after a cork that came just after the stream
        // started (a timing reply from before the cork says it plays): nothing plays while
        // corked, so the latency never falls below what is queued.
        if corked, let queuedWhileCorked, unplayedFramesWhileAway == nil {
            reported = max(reported, queuedWhileCorked - framesTakenOfWriteUnderWay)
        }
        guard let drainCountdown, let format else { return reported }
        return min(reported, format.frames(forSeconds: drainCountdown.remainingSeconds(at: .now)))
    }

    /// ``latencyFrames`` as the server reports it.
    var reportedLatencyFramesLocked: Int {
        if let unplayedFramesWhileAway { return unplayedFramesWhileAway - framesTakenOfWriteUnderWay }
        guard let stream, let format, pa_stream_get_state(stream) == PA_STREAM_READY else { return 0 }
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(stream, &latency, &negative) == 0 else {
            return history.count / format.bytesPerFrame - framesTakenOfWriteUnderWay
        }
        guard negative == 0 else { return 0 }
        let interpolated = Int(format.frames(forMicroseconds: latency).rounded())
        return max(interpolated, timedLatencyFramesLocked(stream, format: format)) - framesTakenOfWriteUnderWay
    }

    /// The latency by the stream's last timing update alone: what its queue held then (the
    /// write index, which libpulse moves on with each write, less the read index), and of the
    /// device's latency as much as the stream had been read (a device holds none of a stream
    /// it has not read from), less the time since (from the device alone if the stream was not
    /// playing: not started, or run dry). 0 without an update, and while corked: an update
    /// from before the cork would count the time the stream played after it as unplayed
    /// (libpulse asks for a new one at the cork), and what is queued is the floor then.
    ///
    /// ``latencyFrames`` never reads below this. libpulse's interpolation runs on its own from
    /// an uncork until an update says the stream does not play, and its time never goes back:
    /// on a device that is not ready for the stream yet (a null sink idles a second or two
    /// ahead, and rewinds for a new stream only as much as its new latency) the position ran
    /// ahead by what the wait lasted, then stood still until the sound caught up.
    private func timedLatencyFramesLocked(_ stream: OpaquePointer, format: AudioFormat) -> Int {
        guard !corked, let info = pa_stream_get_timing_info(stream),
              info.pointee.read_index_corrupt == 0, info.pointee.write_index_corrupt == 0 else { return 0 }
        let bytesPerFrame = Int64(format.bytesPerFrame)
        let queued = Double(max(info.pointee.write_index - info.pointee.read_index, 0) / bytesPerFrame)
        let read = Double(max(info.pointee.read_index, 0) / bytesPerFrame)
        let device = min(format.frames(forMicroseconds: info.pointee.sink_usec), read)
        var timestamp = info.pointee.timestamp
        let since = format.frames(forMicroseconds: pa_timeval_age(&timestamp))
        // A stream that does not play (not started, or run dry) keeps its queue; the device
        // plays on what it holds of it either way.
        let left = info.pointee.playing != 0 ? queued + device - since : queued + max(device - since, 0)
        return max(Int(left.rounded()), 0)
    }

    /// Remembers the stream's latency now, for what a reconnect must write again. While the
    /// server's timing is not known (a new stream, or just after a flush or cork), the `count`
    /// bytes just written add to the latency last known, and the time played is counted from
    /// when it was: they are all queued. A negative latency is a queue that ran dry: only
    /// those bytes are queued.
    func noteLatencyLocked(_ stream: OpaquePointer, afterWriting count: Int) {
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        guard let format, pa_stream_get_latency(stream, &latency, &negative) == 0 else {
            latencyBytesAtWrite += count
            return
        }
        latencyBytesAtWrite = negative != 0
            ? count : Int(format.frames(forMicroseconds: latency)) * format.bytesPerFrame
        lastWrite = .now
    }

    /// Brings the latency known at the last write to now, before a cork or an uncork: a
    /// corked stream plays nothing, so the time since the last write counts as played only
    /// while it was uncorked. Without this, a server lost soon after a resume, before the next
    /// write, would have the whole pause counted as played, and what it had not played would
    /// be written again short.
    func settleLatencyLocked() {
        if !corked, let format {
            let played = (ContinuousClock.now - lastWrite).inSeconds
            latencyBytesAtWrite = PlaybackHistory.unplayedBytes(
                latencyBytes: latencyBytesAtWrite, playedSeconds: played,
                bytesPerSecond: format.sampleRate * format.bytesPerFrame, bytesPerFrame: format.bytesPerFrame,
                held: latencyBytesAtWrite)
        }
        lastWrite = .now
    }

    /// Looks at the stream's last timing update: the server's read index moving is progress
    /// (see ``PulseAudioStallWatch``), and, while the stream plays, the sink's audio heard, so
    /// the count of losses with none heard starts again.
    func observeServerLocked(_ stream: OpaquePointer) {
        guard let info = pa_stream_get_timing_info(stream), info.pointee.read_index_corrupt == 0,
              info.pointee.write_index_corrupt == 0 else { return }
        if stallWatch.observe(readIndex: info.pointee.read_index, writeIndex: info.pointee.write_index,
                              at: pa_rtclock_now()), !corked {
            lossesUnheard = 0
        }
    }

    /// Whether the stream, uncorked, has gone the stall timeout without progress by the last
    /// timing update. If not, makes sure the waiting thread is woken when it would have: call
    /// it before each wait. A stall so found is confirmed by ``stallLocked(_:)``.
    func hasStalledLocked(_ stream: OpaquePointer) -> Bool {
        guard !corked else { return false }
        if stallWatch.hasStalled(at: pa_rtclock_now()) { return true }
        if let context = pa_stream_get_context(stream) {
            stallTimer.wakeLocked(at: stallWatch.due, through: context)
        }
        return false
    }

    /// Confirms a stall that ``hasStalledLocked(_:)`` found by a timing update asked for now
    /// (the last automatic one can be 1.5 s old), and returns the error that has the stream
    /// made again, once what it holds unplayed is known: the bytes written that the server has
    /// not read, none of them played since. (Its latency would count the time since the last
    /// write as played.) Returns `nil` when the update shows the server read on after all, or
    /// when the play was paused or interrupted meanwhile: no stall then.
    func stallLocked(_ stream: OpaquePointer) -> PlayerError? {
        updateTimingLocked(stream)
        observeServerLocked(stream)
        guard !corked, !interrupted.load(ordering: .acquiring), pa_stream_get_state(stream) == PA_STREAM_READY,
              stallWatch.hasStalled(at: pa_rtclock_now()) else { return nil }
        if let info = pa_stream_get_timing_info(stream), let format,
           info.pointee.read_index_corrupt == 0, info.pointee.write_index_corrupt == 0 {
            // A read index past the write index, with no more audio asked for, tells nothing of
            // what was heard (see `PulseAudioStallWatch.observe`): all that is kept is written
            // again, some of it perhaps twice, rather than lost.
            let unread = info.pointee.read_index <= info.pointee.write_index
                ? Int(info.pointee.write_index - info.pointee.read_index) : history.count
            latencyBytesAtWrite = min(unread, history.count) / format.bytesPerFrame * format.bytesPerFrame
        }
        // Without timing, the latency at the last write stands. None of it counts as played,
        // not even if a pause or resume settles the latency before the reconnect: some may be
        // played twice rather than lost.
        lastWrite = .now
        streamStalled = true
        return .soundServerUnavailable(
            reason: "\(serverDescription) played none of the stream's audio for \(stallTimeout) s")
    }

    /// Asks the server for the stream's timing and waits for the answer, for as long again as
    /// the stall timeout at most (a server that stopped answering leaves the last update), or
    /// until the stream is lost or the sink interrupted.
    private func updateTimingLocked(_ stream: OpaquePointer) {
        guard let context = pa_stream_get_context(stream),
              let operation = pa_stream_update_timing_info(stream, { _, _, mainloop in
                  pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
              }, UnsafeMutableRawPointer(mainloop)) else { return }
        defer { pa_operation_unref(operation) }
        let due = pa_rtclock_now() + stallWatch.allowed
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            if pa_rtclock_now() >= due || interrupted.load(ordering: .acquiring)
                || pa_stream_get_state(stream) != PA_STREAM_READY {
                pa_operation_cancel(operation)
                return
            }
            stallTimer.wakeLocked(at: due, through: context)
            pa_threaded_mainloop_wait(mainloop)
        }
    }
}

extension PulseAudioSink {
    /// The sink's state as the server and the sink see it, for a test's failure message: the
    /// stream's state, whether it is corked and whether the caller asked it to run and, once
    /// the stream is ready, the bytes the server asks for, the read and write indices of the
    /// last timing update, and how long since the stall watch last saw progress (or a restart:
    /// an uncork, a new stream). Nothing is asked of a stream not ready, whose calls would set
    /// the connection's error, which the process's other sinks report.
    var stateDescription: String {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream else { return "no stream (away: \(formatWhileAway != nil))" }
        let streamState = pa_stream_get_state(stream)
        let state = switch streamState {
        case PA_STREAM_UNCONNECTED: "unconnected"
        case PA_STREAM_CREATING: "creating"
        case PA_STREAM_READY: "ready"
        case PA_STREAM_FAILED: "failed"
        case PA_STREAM_TERMINATED: "terminated"
        default: "unknown"
        }
        var parts = ["stream \(state)", "corked \(corked)", "run \(runRequested)", "losses \(lossesUnheard)"]
        guard streamState == PA_STREAM_READY else { return parts.joined(separator: ", ") }
        parts.append("writable \(pa_stream_writable_size(stream))")
        if let info = pa_stream_get_timing_info(stream) {
            parts.append("read \(info.pointee.read_index) write \(info.pointee.write_index) "
                + "playing \(info.pointee.playing)")
        }
        let quiet = Double(pa_rtclock_now() &- stallWatch.lastProgress) / 1_000_000
        parts.append("no progress or restart for \((quiet * 10).rounded() / 10) s")
        return parts.joined(separator: ", ")
    }
}

extension AudioFormat {
    /// Frames, not rounded, in `microseconds` of audio: a time PulseAudio gives (`pa_usec_t`).
    func frames(forMicroseconds microseconds: pa_usec_t) -> Double {
        Double(microseconds) * Double(sampleRate) / 1_000_000
    }
}
