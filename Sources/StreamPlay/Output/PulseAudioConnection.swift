import CPulse
import Synchronization

/// One connection to a PulseAudio (or PipeWire-Pulse) server, shared by every
/// ``PulseAudioSink`` of the process that plays to the same server under the same application
/// name: the process is one client of the server, with one stream per sink on it, whatever the
/// number of players. (A PulseAudio daemon takes at most 64 clients.)
///
/// Threads and what each owns:
/// - The `pa_threaded_mainloop` is made with the connection and freed with it. Its thread
///   starts with the first sink's first use (a prepare or an open) and runs until the connection goes (libpulse cannot
///   start a mainloop again once stopped), and dispatches every libpulse event. Callbacks on
///   that thread note the server's answer and signal the mainloop (a broadcast: each waiting
///   thread checks its own condition again).
/// - The context, its generation and every libpulse call are guarded by the mainloop lock,
///   taken by the sinks' decoder and control threads.
/// - The user count, and starting the mainloop's thread, are guarded by `users`. While no sink
///   uses the connection, it holds no context: the server sees the client leave.
///
/// The context is made by the first sink that needs a ready one, or begun by a sink that
/// prepares (``beginConnectingLocked()``) without waiting for it. Sinks that need it while it
/// connects wait for that connection instead of making their own; a context is replaced only
/// once it failed or ended (a server that went away), or once it has been connecting for longer
/// than a sink that opens would wait (a server that hung), never while it is ready.
final class PulseAudioConnection: @unchecked Sendable {
    // @unchecked Sendable: the context, its generation and start, and the last answer are
    // guarded by the mainloop lock, the user count by its Mutex; the rest is immutable.
    let mainloop: OpaquePointer
    private let server: String?
    private let applicationName: String
    /// Sinks using the connection, and whether the mainloop's thread was started.
    private let users = Mutex<(count: Int, started: Bool)>((0, false))
    // Guarded by the mainloop lock.
    private var context: OpaquePointer?
    /// Counts the contexts made, so that a sink can tell the context it checked from a new one.
    private var generation = 0
    /// When the current context began to connect.
    private var connectStarted = ContinuousClock.now
    /// When the server last answered on this connection, on `pa_rtclock_now()`'s clock: a
    /// callback of the context or of any sink's stream. A sink that opens waits while the
    /// server is busy, not while it is silent (see ``PulseAudioOpenDeadline``).
    private(set) var lastAnswerLocked: pa_usec_t = 0

    private struct Key: Hashable {
        let server: String?
        let applicationName: String
    }

    private struct WeakConnection {
        weak var connection: PulseAudioConnection?
    }

    /// The process's connections, held weakly: a connection no sink holds goes away.
    private static let registry = Mutex<[Key: WeakConnection]>([:])

    /// The process's connection to `server` under `applicationName`, made if there is none.
    static func shared(server: String?, applicationName: String) -> PulseAudioConnection {
        let key = Key(server: server, applicationName: applicationName)
        return registry.withEngineLock { connections in
            if let existing = connections[key]?.connection { return existing }
            connections = connections.filter { $0.value.connection != nil }
            let made = PulseAudioConnection(server: server, applicationName: applicationName)
            connections[key] = WeakConnection(connection: made)
            return made
        }
    }

    private init(server: String?, applicationName: String) {
        self.server = server
        self.applicationName = applicationName
        guard let loop = pa_threaded_mainloop_new() else {
            fatalError("pa_threaded_mainloop_new failed: out of memory")
        }
        mainloop = loop
    }

    deinit {
        // Every sink removed itself as a user before letting go of the connection, so there is
        // no context left; dropped here in case. Freeing stops and joins the thread (never this
        // one: the mainloop holds no reference to the connection).
        pa_threaded_mainloop_lock(mainloop)
        disconnectLocked()
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    var serverDescription: String {
        server ?? "the default PulseAudio server"
    }

    /// A sink starts using the connection: the mainloop's thread starts with the first one.
    func addUser() throws(PlayerError) {
        try users.withEngineLock { (users: inout (count: Int, started: Bool)) throws(PlayerError) in
            if !users.started {
                guard pa_threaded_mainloop_start(mainloop) >= 0 else {
                    throw PlayerError.soundServerUnavailable(reason: "cannot start the PulseAudio main loop")
                }
                users.started = true
            }
            users.count += 1
        }
    }

    /// A sink stops using the connection (its streams are closed): after the last one, the
    /// context is disconnected. The thread runs on, for the next sink (see the type).
    func removeUser() {
        users.withEngineLock { users in
            users.count -= 1
            guard users.count == 0 else { return }
            pa_threaded_mainloop_lock(mainloop)
            disconnectLocked()
            pa_threaded_mainloop_unlock(mainloop)
        }
    }

    /// The ready context and its generation, connecting if there is none or the last one failed,
    /// or waiting while another sink's connection is under way. Call with the mainloop lock held.
    ///
    /// A connection under way for longer than `stuckAfter` seconds is given up on and replaced:
    /// a server that hung during one connection must not keep every later sink waiting on it.
    /// - Throws: `soundServerUnavailable` when the connection this call waited for fails, when
    ///   the server does not answer by `deadline`, or when `interrupted` ends the wait
    ///   ("connection interrupted"); in the last two cases the context is left as it is, for
    ///   the other sinks.
    func readyContextLocked(interrupted: () -> Bool, deadline: PulseAudioOpenDeadline,
                            stuckAfter: Double) throws(PlayerError) -> (context: OpaquePointer, generation: Int) {
        var waited = false
        while true {
            let state = context.map { pa_context_get_state($0) }
            if let context, state == PA_CONTEXT_READY { return (context, generation) }
            // A server that accepts and never answers must not hold up a stop.
            if interrupted() {
                throw .soundServerUnavailable(reason: "\(serverDescription): connection interrupted")
            }
            if Self.needsNewContext(state) {
                // The connection waited for (this sink's or another's) failed: the error is this
                // call's. Otherwise the context is gone or failed earlier: a new one replaces it.
                if waited { throw .soundServerUnavailable(reason: "\(serverDescription): \(errorLocked)") }
                try connectLocked()
            } else if !waited, (ContinuousClock.now - connectStarted).inSeconds > stuckAfter {
                // Connecting for longer than this sink would wait: stuck, so started afresh.
                try connectLocked()
            }
            waited = true
            if let context, deadline.hasPassedLocked(wakingThrough: context) {
                throw .soundServerUnavailable(
                    reason: "\(serverDescription) did not answer for \(deadline.description)")
            }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    /// Starts a connection if there is no context, or the last one failed or ended, and returns
    /// at once; a ready context, or one still connecting, is left as it is. Errors are left for
    /// ``readyContextLocked(interrupted:deadline:stuckAfter:)``, which connects again. Call with
    /// the mainloop lock held.
    func beginConnectingLocked() {
        guard Self.needsNewContext(context.map { pa_context_get_state($0) }) else { return }
        try? connectLocked()
    }

    /// Whether a context in `state` (nil: there is none) must be replaced by a new one: it
    /// failed or ended. One connecting or ready is kept.
    private static func needsNewContext(_ state: pa_context_state_t?) -> Bool {
        state == nil || state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED
    }

    /// The server answered: called by the context's and the streams' callbacks, with the
    /// mainloop lock held (on the mainloop's thread; or on the opener's, for the state change
    /// libpulse reports at once when a connection or stream begins, which counts too).
    func noteAnswerLocked() {
        lastAnswerLocked = pa_rtclock_now()
    }

    /// Replaces the context by a new one, connecting.
    private func connectLocked() throws(PlayerError) {
        disconnectLocked()
        guard let newContext = pa_context_new(pa_threaded_mainloop_get_api(mainloop), applicationName) else {
            throw .soundServerUnavailable(reason: "cannot create a PulseAudio context")
        }
        context = newContext
        generation += 1
        connectStarted = .now
        pa_context_set_state_callback(newContext, { _, userdata in
            let connection = Unmanaged<PulseAudioConnection>.fromOpaque(userdata!).takeUnretainedValue()
            connection.noteAnswerLocked()
            pa_threaded_mainloop_signal(connection.mainloop, 0)
        }, Unmanaged.passUnretained(self).toOpaque())
        if pa_context_connect(newContext, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            let failure = PlayerError.soundServerUnavailable(reason: "\(serverDescription): \(errorLocked)")
            disconnectLocked()
            throw failure
        }
    }

    private func disconnectLocked() {
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        context = nil
    }

    /// The current context's last error, for messages. Call with the mainloop lock held.
    var errorLocked: String {
        guard let context else { return "not connected" }
        // A stream can end with no error on the shared context (which may be a newer one).
        let code = pa_context_errno(context)
        return code == 0 ? "the server gave no reason" : String(cString: pa_strerror(code))
    }
}
