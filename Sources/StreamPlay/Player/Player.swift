import FoundationEssentials
import Synchronization

/// Plays MP3 from HTTP(S) URLs and files: the controller a music player links.
///
/// ```swift
/// let player = Player()
/// player.play(try MediaLocation(parsing: "https://example.org/track.mp3"))
/// for await event in player.events {
///     if case .stateChanged(let state) = event, state.isFinal { break }
/// }
/// ```
///
/// Every command is safe from any thread or task and returns promptly; the work happens on the
/// engine's own threads (input, decoder, sound server). `pause`, `resume`, `seek` and `volume`
/// return at once; `stop`, and a `play` that replaces a track, wait the few milliseconds it
/// takes the old play's threads to end, so that nothing of it outlives the call. State and timing can be read
/// synchronously at any time and are also reported on ``events``.
public final class Player: Sendable {
    private struct Core {
        var session: PlaybackSession?
        var sessionID = 0
        var state: PlayerState = .idle
        var format: AudioFormat?
        var duration: Double?
        var metadata: StreamMetadata?
        var volume = 1.0
        var sink: (any AudioSink)?
    }

    /// The configuration the player was made with.
    public let configuration: PlayerConfiguration
    private let core = Mutex(Core())
    private let hub = EventHub()
    /// Held through play and stop, so that two of them never interleave (each joins threads,
    /// which must not happen with `core` held).
    private let commandLock = Mutex(())

    /// Creates a player. Nothing connects or starts until the first play.
    public init(configuration: PlayerConfiguration = PlayerConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        if EngineThread.isEngineThread {
            // The last reference went away inside a report, on an engine thread, which cannot
            // join itself: the stop happens on a thread of its own.
            let (session, sink) = core.withEngineLock { ($0.session, $0.sink) }
            if session != nil || sink != nil {
                _ = EngineThread(name: "sp-release") { session?.stop(); sink?.close() }
            }
        } else {
            stop()
        }
        hub.finishAll()
    }

    // MARK: Commands

    /// Plays `location` from `startTime` seconds, for `length` seconds or to the end,
    /// replacing whatever played before.
    ///
    /// - Parameter urlRefresher: asked for a fresh URL when a resumed request is refused with
    ///   403 or 410, as a signed stream URL that expired mid-track is; given the expired URL,
    ///   it returns the one to resume from (a resolver re-resolving the track). Playback goes on
    ///   at the same byte.
    public func play(_ location: MediaLocation, startingAt startTime: Double = 0, length: Double? = nil,
                     urlRefresher: (@Sendable (String) async throws -> String)? = nil) {
        commandLock.withEngineLock { _ in
            startSession(location, startingAt: startTime, length: length, urlRefresher: urlRefresher)
        }
    }

    private func startSession(_ location: MediaLocation, startingAt startTime: Double, length: Double?,
                              urlRefresher: (@Sendable (String) async throws -> String)?) {
        let previous = core.withEngineLock { core -> PlaybackSession? in
            defer { core.session = nil }
            return core.session
        }
        if let previous {
            previous.stop()
            (core.withEngineLock { $0.sink } as? PulseAudioSink)?.closeStream()
        }
        let (sink, id) = core.withEngineLock { core -> (any AudioSink, Int) in
            let sink = core.sink ?? configuration.output.makeSink(configuration: configuration)
            core.sink = sink
            core.sessionID += 1
            core.format = nil
            core.duration = nil
            core.metadata = nil
            return (sink, core.sessionID)
        }
        sink.setVolume(volume)
        let session = PlaybackSession(location: location, startTime: startTime, length: length, sink: sink,
                                      configuration: configuration, urlRefresher: urlRefresher) { [weak self] report in
            self?.receive(report, from: id)
        }
        core.withEngineLock { $0.session = session }
        update(state: .connecting, sessionID: id)
        session.start()
    }

    /// Parses `text` as a URL or path and plays it; an unusable location ends in ``PlayerState/failed(_:)``.
    public func play(_ text: String, startingAt startTime: Double = 0, length: Double? = nil) {
        do {
            play(try MediaLocation(parsing: text), startingAt: startTime, length: length)
        } catch {
            // Whatever played before ends quietly: the one state reported is this failure.
            commandLock.withEngineLock { _ in
                let id = releaseEngine(nextSession: true)
                update(state: .failed(error), sessionID: id)
            }
        }
    }

    /// Pauses output at once, keeping the position and the buffers.
    public func pause() {
        current?.setPaused(true)
    }

    /// Resumes after ``pause()``.
    public func resume() {
        current?.setPaused(false)
    }

    /// Stops playing and releases the engine's threads, the stream, the sound server connection
    /// and the buffers. Returns once they are gone.
    public func stop() {
        commandLock.withEngineLock { _ in
            let hadSession = current != nil
            let id = releaseEngine(nextSession: false)
            if hadSession {
                update(state: .idle, sessionID: id)
            }
        }
    }

    /// Stops the session and closes the sink. Returns the session id that later reports use.
    private func releaseEngine(nextSession: Bool) -> Int {
        let (session, sink, id) = core.withEngineLock { core in
            defer {
                core.session = nil
                core.sink = nil
                if nextSession { core.sessionID += 1 }
            }
            return (core.session, core.sink, core.sessionID + (nextSession ? 1 : 0))
        }
        session?.stop()
        sink?.close()
        return id
    }

    /// Continues playing from `seconds` into the track. The reported position changes at once;
    /// audio follows as soon as the new position is decoded. After the track ended, it plays
    /// again from there.
    public func seek(to seconds: Double) {
        guard seconds.isFinite, let session = current else { return }
        if !session.seek(to: seconds) {
            play(session.location, startingAt: seconds, length: session.length, urlRefresher: session.urlRefresher)
        }
    }

    // MARK: State

    /// The state of the current play.
    public var state: PlayerState { core.withEngineLock { $0.state } }

    /// Seconds into the track of the audio being heard now (not merely decoded): frames handed to
    /// the sink minus the sink's latency. `nil` before the format is known.
    public var position: Double? { current?.position }

    /// The track's length in seconds, when known.
    public var duration: Double? { core.withEngineLock { $0.duration } }

    /// What an internet radio stream last announced (ICY title and URL), if anything.
    public var metadata: StreamMetadata? { core.withEngineLock { $0.metadata } }

    /// The PCM format of the track, once decoding began.
    public var format: AudioFormat? { core.withEngineLock { $0.format } }

    /// How full the input buffer is, from 0 (empty) to 1 (full).
    public var bufferedFraction: Double { current?.bufferFill ?? 0 }

    /// How the current play has coped with the network so far.
    public var statistics: PlaybackStatistics {
        let session = current?.statistics ?? (rebuffers: 0, rebufferSeconds: 0, reconnects: 0)
        return PlaybackStatistics(rebufferCount: session.rebuffers, rebufferSeconds: session.rebufferSeconds,
                                  reconnectCount: session.reconnects, underflowCount: underflowCount)
    }

    /// Times the sound server ran out of audio while playing (PulseAudio output only; 0 for the
    /// others), since the player's output was opened.
    public var underflowCount: Int {
        (core.withEngineLock { $0.sink } as? PulseAudioSink)?.underflowCount ?? 0
    }

    /// Output volume from 0 (silent) to 1 (unchanged). Applied by the sound server for
    /// PulseAudio, to the samples for the WAV output; the null output ignores it.
    public var volume: Double {
        get { core.withEngineLock { $0.volume } }
        set {
            // NaN and infinities are ignored; the rest is clamped to 0...16 (+24 dB).
            guard newValue.isFinite else { return }
            let volume = min(max(newValue, 0), 16)
            let sink = core.withEngineLock { core in
                core.volume = volume
                return core.sink
            }
            sink?.setVolume(volume)
        }
    }

    /// A stream of everything that happens from now on, starting with the current state.
    /// Each call makes an independent stream; it ends when the player is released.
    public var events: AsyncStream<PlayerEvent> {
        hub.subscribe { .stateChanged(self.state) }
    }

    /// Waits until the current play ends, fails or is stopped, and returns that state.
    public func waitUntilFinished() async -> PlayerState {
        let stream = events
        for await event in stream {
            if case .stateChanged(let state) = event, state.isFinal { return state }
        }
        return state
    }

    // MARK: Reports from the session

    private var current: PlaybackSession? { core.withEngineLock { $0.session } }

    private func receive(_ report: PlaybackSession.Report, from id: Int) {
        switch report {
        case .state(let state):
            update(state: state, sessionID: id)
        case .format(let format):
            forward(.formatKnown(format), from: id) { $0.format = format }
        case .duration(let seconds):
            forward(.durationKnown(seconds), from: id) { $0.duration = seconds }
        case .metadata(let metadata):
            forward(.metadata(metadata), from: id) { $0.metadata = metadata }
        case .bufferingProgress(let fraction):
            forward(.bufferingProgress(fraction), from: id)
        case .seeked(let seconds):
            forward(.seeked(to: seconds), from: id)
        case .seekRefused(let error):
            forward(.seekRefused(error), from: id)
        case .rebuffered(let seconds):
            forward(.rebuffered(seconds: seconds), from: id)
        }
    }

    /// Records and sends `event`, unless it comes from a session that was replaced.
    private func forward(_ event: PlayerEvent, from id: Int, record: (inout Core) -> Void = { _ in }) {
        let current = core.withEngineLock { core -> Bool in
            guard core.sessionID == id else { return false }
            record(&core)
            return true
        }
        if current { hub.send(event) }
    }

    private func update(state: PlayerState, sessionID id: Int) {
        let changed = core.withEngineLock { core in
            guard core.sessionID == id, core.state != state else { return false }
            core.state = state
            return true
        }
        if changed { hub.send(.stateChanged(state)) }
    }
}
