// The sink's state lives in this file, under the mainloop lock; the members that the
// reconnect after a server loss and the drain need (PulseAudioSink+Reconnect.swift,
// PulseAudioSink+Drain.swift) are internal for them.
// What needs none of that state is apart: the stream's callbacks (PulseAudioStreamEvents),
// what a stream asks the server for (PulseAudioStreamRequest), the open deadline, the
// connection and the playback history.
import CPulse
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Plays audio through a PulseAudio (or PipeWire-Pulse) server in real time.
///
/// Uses `pa_threaded_mainloop` with a `pa_stream`, not `pa_simple`: the stream can be corked
/// (pause), flushed (seek, stop), drained, and reports underflows and latency. Streams start
/// corked and are uncorked once the prebuffer is written, for a clean and fast start. Every
/// call into libpulse happens under the mainloop lock; callbacks run on PulseAudio's own thread
/// and only signal.
///
/// A sink shares its process's connection to the server: every sink of the process with the
/// same server and application name plays its own stream over one connection (one client of
/// the server, one mainloop thread), so a process can run more players than the server takes
/// clients. The connection is made by the first sink that prepares or opens, and ends when the
/// last sink using it is closed.
///
/// When the server goes away mid-play (a restart, a crash), a write or a drain reconnects for
/// up to the reconnect timeout, then writes again what the old server held unplayed (the sink
/// keeps the last audio it wrote), so the play goes on where it was heard, and a track's end
/// is reported only once the server acknowledges its drain. A server that does not come
/// back in time is `soundServerUnavailable`, as a server that was never there; so is one that
/// goes away more often in a row than `lossesTolerated` allows, with none of the sink's audio
/// played in between (a paused play plays none). A stream that the server stops playing, while
/// it is to play, is lost in the same way once it has taken none of the sink's audio for the
/// stall timeout (a write it had room for, or its read index moving, is progress; an uncork
/// starts the stall's clock again): a new one is made and gets what the old one had not read.
/// A sink held still for longer than that by its server (suspended, say) fails the play once
/// `lossesTolerated` new streams stalled too.
public final class PulseAudioSink: AudioSink, @unchecked Sendable {
    private let server: String?
    private let sinkName: String?
    private let applicationName: String
    /// Seconds of audio the server is asked to keep queued.
    private let targetLatency: Double
    /// Seconds queued before the server starts (or restarts after an underflow) playing.
    private let prebuffer: Double
    /// Seconds a server that went away mid-play may take to come back (0: fail at once).
    let reconnectTimeout: Double
    /// Seconds the server has to answer while a stream opens (see ``PulseAudioOpenDeadline``).
    let connectTimeout: Double
    /// Seconds a stream to play may go without the server taking any of its audio before it
    /// counts as lost (see ``PulseAudioStallWatch``).
    let stallTimeout: Double

    /// The process's connection to the server, shared with the other sinks that play there.
    private let connection: PulseAudioConnection
    /// The connection's mainloop, whose lock guards the state below; shared with the other
    /// sinks of the connection (a signal wakes them all, and each checks its own state again).
    let mainloop: OpaquePointer
    /// Whether this sink uses the connection (from its ``prepare()`` or first open to
    /// ``close()``): the connection runs while a sink does. Touched by the decoder thread and by
    /// ``close()``, which the player calls only after the decoder thread has ended.
    private var usingConnection = false
    // Guarded by the mainloop lock.
    /// The connection's context generation on which `sinkName` was found to exist.
    var checkedGeneration: Int?
    var stream: OpaquePointer?
    var format: AudioFormat?
    var corked = true
    /// Times the server was lost since the sink's audio last played (see
    /// `PulseAudioSink.lossesTolerated`).
    var lossesUnheard = 0
    /// Whether the server still takes the stream's audio.
    var stallWatch: PulseAudioStallWatch
    /// The stream stalled: the server played none of what it held since `latencyBytesAtWrite`
    /// was set, however long ago (see `stallLocked(_:)`).
    var streamStalled = false
    /// Whether the caller wants the stream running: its last ``start()`` (true), or
    /// ``pause()`` or ``flush()`` (false). Kept while there is no stream, so that the stream a
    /// reconnect makes follows a pause or resume made while the server was away.
    var runRequested = false
    /// The format of the stream lost to a server that went away, until a reconnect makes it
    /// again: a reconnect cut short by a seek leaves the next write to reconnect.
    var formatWhileAway: AudioFormat?
    /// How the drain under way was answered; `nil` until it is.
    var drainAnswer: DrainAnswer?
    /// From a drain's start to the next write, flush or stream: see `DrainCountdown`.
    var drainCountdown: DrainCountdown?
    /// While corked: the frames queued, counted here (the latency at the cork, plus what was
    /// written since). See ``latencyFrames``.
    var queuedWhileCorked: Int? = 0
    private var streamCapacityFrames = Int.max
    private var volume = 1.0
    /// The last bytes written, and the stream's latency when they were, for a reconnect.
    var history = PlaybackHistory(capacity: 0)
    var latencyBytesAtWrite = 0
    /// While reconnecting: the frames the lost server had not played, which stand for its
    /// latency, so that the position holds where the sound stopped.
    var unplayedFramesWhileAway: Int?
    /// Frames of the ``write(_:)`` under way that the server already took: they are queued,
    /// so counted in its latency, but the caller counts them as written only once the write
    /// returns (see ``latencyFrames``).
    var framesTakenOfWriteUnderWay = 0
    var lastWrite = ContinuousClock.now

    let interrupted = Atomic<Bool>(false)
    /// The stream's callbacks, and its underflow count.
    private let events: PulseAudioStreamEvents
    /// Wakes a write or a drain waiting on a stream that may have stalled. Kept from wait to
    /// wait (a timer made and freed per write would wake libpulse's thread each time), and
    /// freed with the stream.
    let stallTimer: PulseAudioWakeTimer

    /// Creates a sink. Nothing connects until ``prepare()`` or the first ``open(format:)``, which
    /// connect to the server, or use the connection the process already has to it.
    ///
    /// - Parameters:
    ///   - server: the server, as in `PULSE_SERVER` (nil: `PULSE_SERVER` or the default).
    ///   - sinkName: the sink to play on (nil: the server's default sink).
    ///   - applicationName: the name the server shows for the stream and the client (sinks with
    ///     another name get a connection of their own).
    ///   - targetLatency: seconds of audio the server is asked to keep queued (see
    ///     ``PlayerConfiguration/defaultTargetLatency``).
    ///   - prebuffer: seconds queued before the server starts playing (at most half of
    ///     `targetLatency`).
    ///   - reconnectTimeout: seconds a server that goes away mid-play may take to come back
    ///     before writes fail (0: they fail at once).
    ///   - connectTimeout: seconds the server may stay silent while ``open(format:)``
    ///     connects, looks up `sinkName` and makes the stream, before it fails (its answers to
    ///     the process's other sinks count): at least 0.1 s, and libpulse's own reply timeout
    ///     (30 s) ends a wait for one answer sooner.
    ///   - stallTimeout: seconds a stream to play may go without the server taking any of its
    ///     audio before it is made again, its unplayed audio written to the new one (at least
    ///     0.1 s).
    public init(server: String? = nil, sinkName: String? = nil, applicationName: String = "StreamPlay",
                targetLatency: Double = PlayerConfiguration.defaultTargetLatency, prebuffer: Double = 0.05, reconnectTimeout: Double = 5,
                connectTimeout: Double = 10, stallTimeout: Double = 5) {
        self.server = server
        self.sinkName = sinkName
        self.applicationName = applicationName
        self.targetLatency = targetLatency
        self.prebuffer = min(prebuffer, targetLatency / 2)
        self.reconnectTimeout = max(reconnectTimeout, 0)
        self.connectTimeout = connectTimeout.isNaN ? 10 : min(max(connectTimeout, 0.1), 86_400)
        stallWatch = PulseAudioStallWatch(seconds: stallTimeout, now: pa_rtclock_now())
        self.stallTimeout = Double(stallWatch.allowed) / 1_000_000
        connection = PulseAudioConnection.shared(server: server, applicationName: applicationName)
        mainloop = connection.mainloop
        events = PulseAudioStreamEvents(connection: connection)
        stallTimer = PulseAudioWakeTimer(mainloop: mainloop)
    }

    deinit {
        close()
    }

    /// Always `true`: PulseAudio plays in real time.
    public var isRealTime: Bool { true }

    /// Underflows (the server ran out of audio while playing) since the sink was made.
    public var underflowCount: Int { events.underflows.load(ordering: .relaxed) }

    /// Connects to the server if the process's connection is not ready, and makes a corked
    /// stream for `format`. A server silent for the connect timeout is
    /// `soundServerUnavailable`.
    public func open(format: AudioFormat) throws(PlayerError) {
        try open(format: format, within: connectTimeout)
        pa_threaded_mainloop_lock(mainloop)
        formatWhileAway = nil
        // A new stream waits, corked, for the caller's start.
        if corked { runRequested = false }
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Starts connecting to the server if the process's connection has no context (or its
    /// last one failed), without waiting: the handshake then runs on the mainloop's thread while
    /// the play fetches its first audio, and ``open(format:)`` finds the connection ready or
    /// under way. From here the sink uses the connection until ``close()``, as after an open.
    /// A failure is left for the open, which connects again and reports it.
    public func prepare() {
        if !usingConnection {
            do { try connection.addUser() } catch { return }
            usingConnection = true
        }
        pa_threaded_mainloop_lock(mainloop)
        connection.beginConnectingLocked()
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Opens with `seconds` of the server's silence allowed, and at most `atMost` seconds in all
    /// when given (see ``PulseAudioOpenDeadline``).
    func open(format: AudioFormat, within seconds: Double, atMost: Double? = nil) throws(PlayerError) {
        if !usingConnection {
            try connection.addUser()
            usingConnection = true
        }
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        let deadline = PulseAudioOpenDeadline(seconds: seconds, atMost: atMost, connection: connection)
        defer { deadline.cancelLocked() }
        let context = try readyContextLocked(deadline: deadline)
        if let stream, self.format == format, pa_stream_get_state(stream) == PA_STREAM_READY {
            return
        }
        closeStreamLocked()
        try makeStreamLocked(format: format, context: context, deadline: deadline)
    }

    /// Writes `pcm`, waiting on the server's requests for more while its buffer is full. A
    /// server that went away is reconnected to first (see the type's description).
    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        defer {
            pa_threaded_mainloop_lock(mainloop)
            framesTakenOfWriteUnderWay = 0
            pa_threaded_mainloop_unlock(mainloop)
        }
        var offset = 0
        while true {
            do throws(PlayerError) {
                try write(pcm, offset: &offset, isCallersAudio: true)
                return offset
            } catch {
                try reconnect(after: error)
                if interrupted.load(ordering: .acquiring) { return offset }
            }
        }
    }

    /// Writes `pcm` from `offset` on, moving `offset` past what was written: to the end, or less
    /// when interrupted or when the server went away (then the error is thrown). The caller's
    /// audio (not a reconnect's rewrite) is counted in `framesTakenOfWriteUnderWay` as it goes.
    func write(_ pcm: UnsafeRawBufferPointer, offset: inout Int, isCallersAudio: Bool) throws(PlayerError) {
        guard let base = pcm.baseAddress else {
            offset = pcm.count
            return
        }
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        drainCountdown = nil
        while offset < pcm.count {
            if interrupted.load(ordering: .acquiring) { return }
            guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
                throw .soundServerUnavailable(reason: "stream lost: \(contextErrorLocked)")
            }
            let writable = pa_stream_writable_size(stream)
            if writable == Int(bitPattern: UInt(bitPattern: -1)) {
                throw .soundServerUnavailable(reason: "stream lost: \(contextErrorLocked)")
            }
            observeServerLocked(stream)
            if writable == 0 {
                if hasStalledLocked(stream) {
                    if let stall = stallLocked(stream) { throw stall }
                    // The confirmation's own wait took the signal that woke it: the checks
                    // above again, not a wait.
                    continue
                }
                pa_threaded_mainloop_wait(mainloop)
                continue
            }
            let count = min(writable, pcm.count - offset)
            if pa_stream_write(stream, base + offset, count, nil, 0, PA_SEEK_RELATIVE) < 0 {
                throw .soundServerUnavailable(reason: "write failed: \(contextErrorLocked)")
            }
            history.append(UnsafeRawBufferPointer(start: base + offset, count: count))
            noteLatencyLocked(stream, afterWriting: count)
            if let format { queuedWhileCorked? += count / format.bytesPerFrame }
            stallWatch.noteProgress(at: pa_rtclock_now())
            offset += count
            if isCallersAudio, let format { framesTakenOfWriteUnderWay = offset / format.bytesPerFrame }
        }
    }

    /// Uncorks the stream.
    public func start() {
        setCorked(false)
    }

    /// Corks the stream: output stops at once, the queue is kept.
    public func pause() {
        setCorked(true)
    }

    /// Corks and flushes the stream (PulseAudio flushes cleanly only while corked).
    /// The stream stays corked until the next ``start()``.
    public func flush() {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        runRequested = false
        // Also while the server is away: a reconnect must not play again what came before.
        history.removeAll()
        latencyBytesAtWrite = 0
        lastWrite = .now
        drainCountdown = nil
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        if !corked {
            corked = true
            unrefOperation(pa_stream_cork(stream, 1, nil, nil))
        }
        queuedWhileCorked = 0
        unrefOperation(pa_stream_flush(stream, nil, nil))
    }

    /// Releases the stream and this sink's use of the server connection: the connection ends
    /// with the last sink that uses it. The sink may be opened again.
    public func close() {
        pa_threaded_mainloop_lock(mainloop)
        closeStreamLocked()
        checkedGeneration = nil
        formatWhileAway = nil
        lossesUnheard = 0
        pa_threaded_mainloop_unlock(mainloop)
        if usingConnection {
            connection.removeUser()
            usingConnection = false
        }
    }

    /// Releases the stream only, keeping the server connection for the next track: what the
    /// replaced track queued is gone at once.
    public func beginNewTrack() {
        pa_threaded_mainloop_lock(mainloop)
        closeStreamLocked()
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Wakes a writer or drainer blocked on the server.
    public func interrupt() {
        interrupted.store(true, ordering: .releasing)
        pa_threaded_mainloop_lock(mainloop)
        pa_threaded_mainloop_signal(mainloop, 0)
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Lets writes block again.
    public func clearInterrupt() {
        interrupted.store(false, ordering: .releasing)
    }

    /// The stream's target length as the server granted it.
    public var queueCapacityFrames: Int {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return streamCapacityFrames
    }

    /// Sets the stream's volume on the server (1 leaves samples unchanged).
    public func setVolume(_ volume: Double) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        self.volume = volume
        guard let stream, let format, pa_stream_get_state(stream) == PA_STREAM_READY,
              let context = pa_stream_get_context(stream) else { return }
        var channelVolume = PulseAudioStreamRequest.volume(volume, channels: format.channels)
        unrefOperation(pa_context_set_sink_input_volume(context, pa_stream_get_index(stream), &channelVolume, nil, nil))
    }

    // MARK: Connection (mainloop lock held)

    /// The connection's ready context, connecting if needed; a sink asked for by name must
    /// exist on it.
    private func readyContextLocked(deadline: PulseAudioOpenDeadline) throws(PlayerError) -> OpaquePointer {
        let (context, generation) = try connection.readyContextLocked(
            interrupted: { interrupted.load(ordering: .acquiring) }, deadline: deadline, stuckAfter: connectTimeout)
        // A sink asked for by name must exist. PulseAudio refuses a stream to a missing sink,
        // but PipeWire's pulse server plays it on the default sink instead: the audio would be
        // heard somewhere the caller did not ask for. Checked once per connection.
        guard let sinkName, checkedGeneration != generation else { return context }
        var timedOut = false
        let found = PulseSinkLookup.exists(sinkName, context: context, mainloop: mainloop) {
            timedOut = deadline.hasPassedLocked(wakingThrough: context)
            return timedOut || interrupted.load(ordering: .acquiring)
        }
        if !found {
            if timedOut { throw noAnswer(within: deadline) }
            throw interrupted.load(ordering: .acquiring)
                ? .soundServerUnavailable(reason: "\(connection.serverDescription): connection interrupted")
                : .soundServerUnavailable(reason: "\(connection.serverDescription) has no sink named \(sinkName)")
        }
        checkedGeneration = generation
        return context
    }

    var serverDescription: String {
        connection.serverDescription
    }

    private func noAnswer(within deadline: PulseAudioOpenDeadline) -> PlayerError {
        .soundServerUnavailable(reason: "\(serverDescription) did not answer for \(deadline.description)")
    }

    // MARK: Stream (mainloop lock held)

    private func makeStreamLocked(format: AudioFormat, context: OpaquePointer,
                                  deadline: PulseAudioOpenDeadline) throws(PlayerError) {
        var spec = PulseAudioStreamRequest.sampleSpec(format)
        guard let newStream = pa_stream_new(context, applicationName, &spec, nil) else {
            throw .soundServerUnavailable(reason: "cannot create a stream for \(format): \(contextErrorLocked)")
        }
        events.attach(to: newStream)

        var attributes = PulseAudioStreamRequest.bufferAttributes(targetLatency: targetLatency, prebuffer: prebuffer, spec: spec)
        let flags = PulseAudioStreamRequest.flags
        var channelVolume = PulseAudioStreamRequest.volume(volume, channels: format.channels)
        let connected = volume == 1
            ? pa_stream_connect_playback(newStream, sinkName, &attributes, flags, nil, nil)
            : pa_stream_connect_playback(newStream, sinkName, &attributes, flags, &channelVolume, nil)
        stream = newStream
        self.format = format
        corked = true
        queuedWhileCorked = 0
        guard connected == 0 else {
            let reason = contextErrorLocked
            closeStreamLocked()
            throw .soundServerUnavailable(reason: "cannot play on \(sinkName ?? "the default sink"): \(reason)")
        }
        while true {
            let state = pa_stream_get_state(newStream)
            if state == PA_STREAM_READY { break }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED || interrupted.load(ordering: .acquiring) {
                let reason = state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED ? contextErrorLocked : "interrupted"
                closeStreamLocked()
                throw .soundServerUnavailable(reason: "cannot play on \(sinkName ?? "the default sink"): \(reason)")
            }
            if deadline.hasPassedLocked(wakingThrough: context) {
                closeStreamLocked()
                throw noAnswer(within: deadline)
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        if let granted = pa_stream_get_buffer_attr(newStream) {
            streamCapacityFrames = Int(granted.pointee.tlength) / format.bytesPerFrame
        }
        // Room for what the server can hold unplayed: its target length twice over, and a
        // quarter of a second for the device.
        let queued = streamCapacityFrames == .max ? format.sampleRate : streamCapacityFrames
        history = PlaybackHistory(capacity: (2 * queued + format.sampleRate / 4) * format.bytesPerFrame)
        latencyBytesAtWrite = 0
        lastWrite = .now
        stallWatch.restart(at: pa_rtclock_now())
        streamStalled = false
    }

    func closeStreamLocked() {
        stallTimer.cancelLocked()
        drainCountdown = nil
        streamStalled = false
        guard let stream else { return }
        PulseAudioStreamEvents.detach(from: stream)
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            pa_stream_disconnect(stream)
        case PA_STREAM_CREATING:
            // Given up while the server makes it (an interrupt): it cannot be disconnected yet,
            // and the shared context keeps it, so it would become a stream of nobody's once
            // ready. It is disconnected then, by a callback that needs no sink.
            pa_stream_set_state_callback(stream, { stream, _ in
                if let stream, pa_stream_get_state(stream) == PA_STREAM_READY { pa_stream_disconnect(stream) }
            }, nil)
        default:
            break
        }
        pa_stream_unref(stream)
        self.stream = nil
        format = nil
        streamCapacityFrames = .max
    }

    private func setCorked(_ cork: Bool) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        runRequested = !cork
        guard let stream, corked != cork, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        settleLatencyLocked()
        drainCountdown?.setRunning(!cork, at: .now)
        queuedWhileCorked = cork ? max(reportedLatencyFramesLocked + framesTakenOfWriteUnderWay, 0) : nil
        corked = cork
        if !cork { stallWatch.noteProgress(at: pa_rtclock_now()) }
        unrefOperation(pa_stream_cork(stream, cork ? 1 : 0, nil, nil))
    }

    func unrefOperation(_ operation: OpaquePointer?) {
        if let operation { pa_operation_unref(operation) }
    }

    var contextErrorLocked: String {
        connection.errorLocked
    }
}
