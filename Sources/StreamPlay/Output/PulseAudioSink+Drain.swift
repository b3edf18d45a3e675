import CPulse

// The drain at a track's end: what the server says of it, and a server lost during it.

extension PulseAudioSink {
    /// Waits until the server has played everything written. A server that went away before
    /// or during the drain is reconnected to, and what it had not played is written again and
    /// drained, as a write does (see the type's description): a drain returns `true` only for
    /// audio the server said it played. One that refuses the drain while its stream stays up
    /// (it acknowledges it with failure) gets a new stream in the same way, up to
    /// `lossesTolerated` times in one drain.
    public func drain() throws(PlayerError) -> Bool {
        var refusals = 0
        while true {
            switch drainStream() {
            case .drained:
                return true
            case .interrupted:
                return false
            case .lost(let error):
                try reconnect(after: error)
            case .refused(let error):
                refusals += 1
                guard refusals <= Self.lossesTolerated else { throw error }
                try reconnect(after: error)
            }
            if interrupted.load(ordering: .acquiring) { return false }
        }
    }

    /// How one drain of the current stream ended.
    enum DrainOutcome {
        case drained
        /// ``interrupt()`` cut the wait short.
        case interrupted
        /// The stream is gone, or went while draining: its audio is to be written again.
        case lost(PlayerError)
        /// The server acknowledged the drain with failure, the stream still up.
        case refused(PlayerError)
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
        drainSucceeded = nil
        guard let operation = pa_stream_drain(stream, { _, success, userdata in
            let sink = Unmanaged<PulseAudioSink>.fromOpaque(userdata!).takeUnretainedValue()
            sink.drainSucceeded = success != 0
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
            pa_threaded_mainloop_wait(mainloop)
        }
        // A stream that fails cancels its operations: the drain ends unacknowledged.
        guard pa_stream_get_state(stream) == PA_STREAM_READY, let succeeded = drainSucceeded else {
            return .lost(.soundServerUnavailable(reason: "stream lost while draining: \(contextErrorLocked)"))
        }
        return succeeded
            ? .drained : .refused(.soundServerUnavailable(reason: "the server refused to drain: \(contextErrorLocked)"))
    }
}
