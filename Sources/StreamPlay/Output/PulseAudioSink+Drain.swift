import CPulse

// The drain at a track's end: what the server says of it, and a server lost during it.

extension PulseAudioSink {
    /// Waits until the server has played everything written, or returns `false` when
    /// ``interrupt()`` cuts the wait short. A server that went away before or during the drain
    /// is reconnected to, and what it had not played is written again and drained, as a write
    /// does (see the type's description): with a stream, `true` comes only from the server's
    /// acknowledgement. With no stream and no audio kept from a lost one, the drain is done
    /// at once.
    ///
    /// A drain answered with failure while the stream stays up is sent again on the same
    /// stream. libpulse answers so itself when the server's reply takes longer than its 30 s
    /// timeout, which is how a drain of a paused (corked) stream waits: that goes on until the
    /// resume. Any other failure, and a timeout while the stream plays, counts: more than
    /// `lossesTolerated` of them (each timeout a 30 s wait) fail the play with
    /// `soundServerUnavailable`. A stream that the server stops playing during the drain is
    /// lost once the stall timeout has passed, as during a write.
    ///
    /// Both servers acknowledge a drain after the last sample was played by the stream's own
    /// clock: on a null sink here with a 1 s target, PulseAudio and PipeWire about 0.1 s
    /// after. Meanwhile ``latencyFrames`` counts down by the clock (see
    /// `DrainCountdown`), so that the position reaches the end when the last sample is heard.
    public func drain() throws(PlayerError) -> Bool {
        startDrainCountdown()
        var countedFailures = 0
        while true {
            switch drainStream() {
            case .drained:
                return true
            case .interrupted:
                return false
            case .lost(let error):
                try reconnect(after: error)
            case .refused(let error, let counted):
                if counted {
                    countedFailures += 1
                    guard countedFailures <= Self.lossesTolerated else { throw error }
                }
            }
            if interrupted.load(ordering: .acquiring) { return false }
        }
    }

    /// Starts the `DrainCountdown`, unless a drain cut short (by a pause's interrupt) left
    /// one running. It starts from the latency read at the last write, less what played since
    /// (the server's figure may already have stopped shrinking when the drain begins), and
    /// never above what the server reports now.
    private func startDrainCountdown() {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard drainCountdown == nil, let format else { return }
        settleLatencyLocked()
        let frames = min(latencyBytesAtWrite / format.bytesPerFrame, reportedLatencyFramesLocked)
        drainCountdown = DrainCountdown(seconds: format.seconds(forFrames: max(frames, 0)), running: !corked, at: .now)
    }

    /// How the server answered a drain: success, or failure with the connection's error then.
    enum DrainAnswer {
        case succeeded
        case failed(Int32)
    }

    /// How one drain of the current stream ended.
    enum DrainOutcome {
        case drained
        /// ``interrupt()`` cut the wait short.
        case interrupted
        /// The stream is gone, went while draining, or stalled: its audio is to be written
        /// again.
        case lost(PlayerError)
        /// The drain was answered with failure, the stream still up. `counted` unless it was
        /// libpulse's reply timeout on a corked stream, which is how a paused drain waits.
        case refused(PlayerError, counted: Bool)
    }

    /// Drains the current stream once. No stream at all is drained, unless a server lost
    /// while its audio was being written again left that audio for the next reconnect.
    func drainStream() -> DrainOutcome {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream else {
            return formatWhileAway == nil
                ? .drained : .lost(.soundServerUnavailable(reason: "stream lost: \(contextErrorLocked)"))
        }
        guard pa_stream_get_state(stream) == PA_STREAM_READY else {
            return .lost(.soundServerUnavailable(reason: "stream lost: \(contextErrorLocked)"))
        }
        drainAnswer = nil
        guard let operation = pa_stream_drain(stream, { stream, success, userdata in
            let sink = Unmanaged<PulseAudioSink>.fromOpaque(userdata!).takeUnretainedValue()
            // The connection's error is shared by its sinks: read while it is this answer's.
            sink.drainAnswer = success != 0 ? .succeeded : .failed(pa_context_errno(pa_stream_get_context(stream)))
            pa_threaded_mainloop_signal(sink.mainloop, 0)
        }, Unmanaged.passUnretained(self).toOpaque()) else {
            return .lost(.soundServerUnavailable(reason: "drain failed: \(contextErrorLocked)"))
        }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            if interrupted.load(ordering: .acquiring) {
                pa_operation_cancel(operation)
                return .interrupted
            }
            if pa_stream_get_state(stream) != PA_STREAM_READY {
                pa_operation_cancel(operation)
                break
            }
            observeServerLocked(stream)
            if hasStalledLocked(stream) {
                let stall = stallLocked(stream)
                if pa_operation_get_state(operation) != PA_OPERATION_RUNNING {
                    // Answered while the stall was being confirmed: the answer stands.
                    streamStalled = false
                    break
                }
                if let stall {
                    pa_operation_cancel(operation)
                    return .lost(stall)
                }
                // The confirmation's own wait took the signal that woke it: the checks again.
                continue
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        if case .succeeded? = drainAnswer { return .drained }
        // A stream that fails cancels its operations: the drain ends unanswered.
        guard pa_stream_get_state(stream) == PA_STREAM_READY, case .failed(let error)? = drainAnswer else {
            return .lost(.soundServerUnavailable(reason: "stream lost while draining: \(contextErrorLocked)"))
        }
        let reason = String(cString: pa_strerror(error))
        let timedOut = error == Int32(PA_ERR_TIMEOUT.rawValue)
        return .refused(.soundServerUnavailable(reason: "the drain failed: \(reason)"), counted: !corked || !timedOut)
    }
}
