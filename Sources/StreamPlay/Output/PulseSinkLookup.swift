import CPulse
import Synchronization

/// Asks a PulseAudio server whether it has a sink of a given name, on a connected context.
///
/// Called with the threaded mainloop's lock held, on the thread that holds it; the answer
/// arrives on PulseAudio's thread, which only records it and signals.
enum PulseSinkLookup {
    /// What a lookup found; written on PulseAudio's thread, read under the mainloop lock.
    private final class Answer {
        let found = Atomic<Bool>(false)
        let mainloop: OpaquePointer
        init(mainloop: OpaquePointer) { self.mainloop = mainloop }
    }

    /// Whether the server has a sink called `name`. Waits for the answer; `stopsWaiting`,
    /// asked before each wait, ends it, and the answer is then "no".
    static func exists(_ name: String, context: OpaquePointer, mainloop: OpaquePointer,
                       stopsWaiting: () -> Bool) -> Bool {
        let answer = Answer(mainloop: mainloop)
        let retained = Unmanaged.passRetained(answer)
        defer { retained.release() }
        guard let operation = pa_context_get_sink_info_by_name(context, name, { _, info, _, userdata in
            let answer = Unmanaged<Answer>.fromOpaque(userdata!).takeUnretainedValue()
            if info != nil { answer.found.store(true, ordering: .releasing) }
            pa_threaded_mainloop_signal(answer.mainloop, 0)
        }, retained.toOpaque()) else { return false }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            if stopsWaiting() || pa_context_get_state(context) != PA_CONTEXT_READY {
                pa_operation_cancel(operation)
                return false
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        return answer.found.load(ordering: .acquiring)
    }
}
