import CPulse
import Synchronization

/// What a ``PulseAudioSink``'s stream does with libpulse's events, on libpulse's mainloop thread
/// (with the mainloop lock held): each callback notes the server's answer on the connection
/// (see ``PulseAudioOpenDeadline``) and signals the mainloop, whose waiters check their own
/// state again; an underflow is counted too. One per sink, held by it for as long as its stream
/// has the callbacks: ``detach(from:)`` takes them off before the stream is let go.
final class PulseAudioStreamEvents: Sendable {
    let connection: PulseAudioConnection
    /// Underflows (the server ran out of audio while playing) of the sink's streams.
    let underflows = Atomic<Int>(0)

    init(connection: PulseAudioConnection) {
        self.connection = connection
    }

    /// Sets `stream`'s state, latency, write and underflow callbacks to this object's.
    func attach(to stream: OpaquePointer) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        let signal: pa_stream_notify_cb_t = { _, userdata in
            Unmanaged<PulseAudioStreamEvents>.fromOpaque(userdata!).takeUnretainedValue().answered()
        }
        pa_stream_set_state_callback(stream, signal, userdata)
        pa_stream_set_latency_update_callback(stream, signal, userdata)
        pa_stream_set_write_callback(stream, { _, _, userdata in
            Unmanaged<PulseAudioStreamEvents>.fromOpaque(userdata!).takeUnretainedValue().answered()
        }, userdata)
        pa_stream_set_underflow_callback(stream, { _, userdata in
            let events = Unmanaged<PulseAudioStreamEvents>.fromOpaque(userdata!).takeUnretainedValue()
            events.underflows.add(1, ordering: .relaxed)
            events.answered()
        }, userdata)
    }

    /// Takes the callbacks off `stream`.
    static func detach(from stream: OpaquePointer) {
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_latency_update_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_underflow_callback(stream, nil, nil)
    }

    private func answered() {
        connection.noteAnswerLocked()
        pa_threaded_mainloop_signal(connection.mainloop, 0)
    }
}
