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
    /// The next track, opened before the current one ends so that it can follow without a gap.
    private struct Preloaded {
        var session: PlaybackSession
        var sessionID: Int
        var itemID: Int
        var format: AudioFormat?
        var duration: Double?
        var metadata: StreamMetadata?
        var phase: PlayerState = .connecting
    }

    private struct Core {
        var session: PlaybackSession?
        /// The id of the current session: reports from any other are stale or a preload's.
        var sessionID = 0
        var lastSessionID = 0
        var state: PlayerState = .idle
        var format: AudioFormat?
        var duration: Double?
        var metadata: StreamMetadata?
        var volume = 1.0
        var sink: (any AudioSink)?
        var queue: [QueueItem] = []
        var currentIndex: Int?
        var lastItemID = 0
        var refreshers: [Int: URLRefresher] = [:]
        var preloaded: Preloaded?
        /// Sessions that ended on their own thread and wait to be joined by another.
        var retired: [PlaybackSession] = []

        mutating func makeSessionID() -> Int {
            lastSessionID += 1
            return lastSessionID
        }

        mutating func makeItem(_ location: MediaLocation, startTime: Double, length: Double?,
                               urlRefresher: URLRefresher?) -> QueueItem {
            lastItemID += 1
            if let urlRefresher { refreshers[lastItemID] = urlRefresher }
            return QueueItem(id: lastItemID, location: location, startTime: max(startTime, 0), length: length)
        }

        /// Takes every session out, for the caller to stop.
        mutating func takeSessions() -> [PlaybackSession] {
            defer {
                session = nil
                preloaded = nil
                retired = []
                sessionID = makeSessionID()
            }
            return [session, preloaded?.session].compactMap { $0 } + retired
        }
    }

    /// The configuration the player was made with.
    public let configuration: PlayerConfiguration
    private let core = Mutex(Core())
    /// Fans events out to every ``events`` stream.
    private let hub = Broadcaster<PlayerEvent>(buffered: 1024)
    /// Held through the commands that stop sessions, so that two of them never interleave (each
    /// joins threads, which must not happen with `core` held). Engine threads never take it.
    private let commandLock = Mutex(())

    /// Creates a player. Nothing connects or starts until the first play.
    public init(configuration: PlayerConfiguration = PlayerConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        if EngineThread.isEngineThread {
            // The last reference went away inside a report, on an engine thread, which cannot
            // join itself: the stop happens on a thread of its own.
            let (sessions, sink) = core.withEngineLock { ($0.takeSessions(), $0.sink) }
            if !sessions.isEmpty || sink != nil {
                _ = EngineThread(name: "sp-release") {
                    for session in sessions { session.stop() }
                    sink?.close()
                }
            }
        } else {
            stop()
        }
        hub.finishAll()
    }

    // MARK: Commands

    /// Plays `location` from `startTime` seconds, for `length` seconds or to the end,
    /// replacing the queue (and whatever played before) with it.
    ///
    /// - Parameters:
    ///   - location: the file or URL to play.
    ///   - startTime: where to start, in seconds of the track.
    ///   - length: seconds to play from there; `nil` plays to the end.
    ///   - urlRefresher: asked for a fresh URL when a request is refused with 403 or 410, as a
    ///     signed stream URL that expired (mid-track, or before its turn came) is; given the
    ///     expired URL, it returns the one to use (a resolver re-resolving the track). Playback
    ///     goes on at the same byte. At the first request it is asked once (a fresh URL refused
    ///     too ends the item); mid-stream each refusal counts as a retry, so it is asked at most
    ///     ``ReconnectPolicy/maximumRetries`` times in a row. HLS asks it for the playlist and
    ///     for segments by the same rules. It is given
    ///     ``PlayerConfiguration/urlRefreshTimeout`` seconds and cancelled after.
    public func play(_ location: MediaLocation, startingAt startTime: Double = 0, length: Double? = nil,
                     urlRefresher: URLRefresher? = nil) {
        commandLock.withEngineLock { _ in
            core.withEngineLock { core in
                core.refreshers = [:]
                core.queue = [core.makeItem(location, startTime: startTime, length: length, urlRefresher: urlRefresher)]
                core.currentIndex = nil
            }
            startItem(at: 0)
        }
    }

    /// Replaces the queue with `locations` and plays them in turn, each following the one
    /// before without a gap; each from `startTime`, for `length` seconds at most.
    public func play(_ locations: [MediaLocation], startingAt startTime: Double = 0, length: Double? = nil) {
        commandLock.withEngineLock { _ in
            let empty = core.withEngineLock { core in
                core.refreshers = [:]
                core.queue = locations.map { core.makeItem($0, startTime: startTime, length: length, urlRefresher: nil) }
                core.currentIndex = nil
                return core.queue.isEmpty
            }
            if empty {
                stopLocked()
            } else {
                startItem(at: 0)
            }
        }
    }

    /// Parses `text` as a URL or path and plays it; an unusable location ends in ``PlayerState/failed(_:)``.
    public func play(_ text: String, startingAt startTime: Double = 0, length: Double? = nil) {
        do {
            play(try MediaLocation(parsing: text), startingAt: startTime, length: length)
        } catch {
            // Whatever played before ends quietly: the one state reported is this failure.
            commandLock.withEngineLock { _ in
                let id = releaseEngine()
                core.withEngineLock { core in
                    core.queue = []
                    core.currentIndex = nil
                }
                update(state: .failed(error), sessionID: id)
            }
        }
    }

    // MARK: Queue

    /// The play queue, in order.
    public var queue: [QueueItem] { core.withEngineLock { $0.queue } }

    /// The index in ``queue`` of the item playing (or paused, or last played), if any.
    public var currentIndex: Int? { core.withEngineLock { $0.currentIndex } }

    /// The item playing (or paused, or last played), if any.
    public var currentItem: QueueItem? {
        core.withEngineLock { core in core.currentIndex.map { core.queue[$0] } }
    }

    /// Adds `location` at the end of the queue. Playback does not start by itself: an item added
    /// while the queue plays is played in its turn.
    @discardableResult
    public func enqueue(_ location: MediaLocation, startingAt startTime: Double = 0, length: Double? = nil,
                        urlRefresher: URLRefresher? = nil) -> QueueItem {
        commandLock.withEngineLock { _ in
            let item = core.withEngineLock { core in
                let item = core.makeItem(location, startTime: startTime, length: length, urlRefresher: urlRefresher)
                core.queue.append(item)
                return item
            }
            dropStalePreload()
            return item
        }
    }

    /// Inserts `location` at `index` (0 up to the queue's count; clamped).
    @discardableResult
    public func insert(_ location: MediaLocation, at index: Int, startingAt startTime: Double = 0,
                       length: Double? = nil) -> QueueItem {
        commandLock.withEngineLock { _ in
            let item = core.withEngineLock { core in
                let item = core.makeItem(location, startTime: startTime, length: length, urlRefresher: nil)
                let position = min(max(index, 0), core.queue.count)
                core.queue.insert(item, at: position)
                if let current = core.currentIndex, position <= current { core.currentIndex = current + 1 }
                return item
            }
            dropStalePreload()
            return item
        }
    }

    /// Removes the item at `index`. Removing the item that plays goes on with the one after it,
    /// or stops when it was the last.
    public func remove(at index: Int) {
        commandLock.withEngineLock { _ in
            enum Follow { case nothing, playSameIndex(Int), stop }
            let follow = core.withEngineLock { core -> Follow in
                guard core.queue.indices.contains(index) else { return .nothing }
                let item = core.queue.remove(at: index)
                core.refreshers[item.id] = nil
                guard let current = core.currentIndex else { return .nothing }
                if index < current {
                    core.currentIndex = current - 1
                } else if index == current {
                    let active = core.session != nil && !core.state.isFinal
                    core.currentIndex = nil
                    if !active { return .nothing }
                    return index < core.queue.count ? .playSameIndex(index) : .stop
                }
                return .nothing
            }
            switch follow {
            case .nothing: dropStalePreload()
            case .playSameIndex(let index): startItem(at: index)
            case .stop: stopLocked()
            }
        }
    }

    /// Stops playback and empties the queue.
    public func clearQueue() {
        commandLock.withEngineLock { _ in
            stopLocked()
            core.withEngineLock { core in
                core.queue = []
                core.currentIndex = nil
                core.refreshers = [:]
            }
        }
    }

    /// Plays the item at `index` of the queue from its start.
    public func play(itemAt index: Int) {
        commandLock.withEngineLock { _ in
            guard core.withEngineLock({ $0.queue.indices.contains(index) }) else { return }
            startItem(at: index)
        }
    }

    /// Plays the next item of the queue.
    /// - Returns: `false` (and nothing changes) when there is none.
    @discardableResult
    public func next() -> Bool {
        step(by: 1)
    }

    /// Plays the previous item of the queue.
    /// - Returns: `false` (and nothing changes) when there is none.
    @discardableResult
    public func previous() -> Bool {
        step(by: -1)
    }

    private func step(by offset: Int) -> Bool {
        commandLock.withEngineLock { _ in
            let target = core.withEngineLock { core -> Int? in
                guard let current = core.currentIndex, core.queue.indices.contains(current + offset) else { return nil }
                return current + offset
            }
            guard let target else { return false }
            startItem(at: target)
            return true
        }
    }

    // MARK: Sessions

    /// Makes the item at `index` current and plays it from `startTime` (its own start when `nil`):
    /// the preloaded session when it is that item's, a new one otherwise. Under `commandLock`.
    private func startItem(at index: Int, startTime: Double? = nil) {
        let sessions = core.withEngineLock { core -> [PlaybackSession] in
            let keep = core.preloaded.flatMap { startTime == nil && $0.itemID == core.queue[index].id ? $0 : nil }
            defer {
                core.session = nil
                core.preloaded = keep
                core.retired = []
            }
            let stale = core.preloaded.flatMap { $0.itemID == keep?.itemID ? nil : $0.session }
            // Reports the stopped sessions still send are stale from here on.
            core.sessionID = core.makeSessionID()
            return [core.session, stale].compactMap { $0 } + core.retired
        }
        if !sessions.isEmpty {
            for session in sessions { session.stop() }
            // A fresh stream for the next track: what the old one queued is gone at once.
            (core.withEngineLock { $0.sink } as? PulseAudioSink)?.closeStream()
        }
        let (session, item, id, promoted) = core.withEngineLock { core -> (PlaybackSession, QueueItem, Int, Preloaded?) in
            let item = core.queue[index]
            core.currentIndex = index
            if let preloaded = core.preloaded {
                promote(preloaded, core: &core)
                return (preloaded.session, item, preloaded.sessionID, preloaded)
            }
            let id = core.makeSessionID()
            let session = makeSession(item, id: id, startTime: startTime, preload: false, core: &core)
            core.session = session
            core.sessionID = id
            core.format = nil
            core.duration = nil
            core.metadata = nil
            return (session, item, id, nil)
        }
        sink(in: session)
        hub.send(.currentItemChanged(index: index, item: item))
        if let promoted {
            if case .failed = promoted.phase {
                advance(from: id, final: promoted.phase)  // skipped, as in advance(from:final:)
                return
            }
            announce(promoted)
            update(state: promoted.phase, sessionID: id)
            session.activate()
        } else {
            update(state: .connecting, sessionID: id)
            session.start()
        }
    }

    /// A session for `item`, reporting as `id`. Under the `core` lock; starts nothing.
    private func makeSession(_ item: QueueItem, id: Int, startTime: Double?, preload: Bool,
                             core: inout Core) -> PlaybackSession {
        let sink = core.sink ?? configuration.output.makeSink(configuration: configuration)
        core.sink = sink
        return PlaybackSession(location: item.location, startTime: startTime ?? item.startTime, length: item.length,
                               sink: sink, configuration: configuration, urlRefresher: core.refreshers[item.id],
                               preload: preload,
                               handOff: { [weak self] format in self?.handOff(from: id, format: format) ?? false }) { [weak self] report in
            self?.receive(report, from: id)
        }
    }

    /// Applies the player's volume to the sink a session uses.
    private func sink(in session: PlaybackSession) {
        let (sink, volume) = core.withEngineLock { ($0.sink, $0.volume) }
        sink?.setVolume(volume)
    }

    /// Makes a preloaded session the current one. Under the `core` lock.
    private func promote(_ preloaded: Preloaded, core: inout Core) {
        core.session = preloaded.session
        core.sessionID = preloaded.sessionID
        core.preloaded = nil
        core.format = preloaded.format
        core.duration = preloaded.duration
        core.metadata = preloaded.metadata
    }

    /// Sends what a promoted session had reported while preloaded.
    private func announce(_ preloaded: Preloaded) {
        if let format = preloaded.format { hub.send(.formatKnown(format)) }
        if let duration = preloaded.duration { hub.send(.durationKnown(duration)) }
        if let metadata = preloaded.metadata { hub.send(.metadata(metadata)) }
    }

    /// Stops a preloaded session whose item is no longer the next one (the queue changed).
    /// Under `commandLock`.
    private func dropStalePreload() {
        let stale = core.withEngineLock { core -> PlaybackSession? in
            guard let preloaded = core.preloaded else { return nil }
            if let current = core.currentIndex, current + 1 < core.queue.count,
               core.queue[current + 1].id == preloaded.itemID { return nil }
            core.preloaded = nil
            return preloaded.session
        }
        stale?.stop()
    }

    /// Opens the item after the current one, ahead of the current one's end. Engine thread.
    private func preloadNext(after id: Int) {
        let (session, finished) = core.withEngineLock { core -> (PlaybackSession?, [PlaybackSession]) in
            let finished = core.retired
            core.retired = []
            guard core.sessionID == id, core.preloaded == nil, let current = core.currentIndex,
                  current + 1 < core.queue.count else { return (nil, finished) }
            let item = core.queue[current + 1]
            let preloadID = core.makeSessionID()
            let session = makeSession(item, id: preloadID, startTime: nil, preload: true, core: &core)
            core.preloaded = Preloaded(session: session, sessionID: preloadID, itemID: item.id)
            return (session, finished)
        }
        for old in finished { old.stop() }
        session?.start()
    }

    /// Asked by the current session `id` at its end: whether the preloaded next item, decoded
    /// and waiting in the same `format`, takes over the sink now (gapless). Engine thread.
    private func handOff(from id: Int, format: AudioFormat) -> Bool {
        let promoted = core.withEngineLock { core -> (Preloaded, Int)? in
            guard core.sessionID == id, let preloaded = core.preloaded, let current = core.currentIndex,
                  current + 1 < core.queue.count, core.queue[current + 1].id == preloaded.itemID,
                  preloaded.session.readyFormat == format else { return nil }
            if let session = core.session { core.retired.append(session) }
            core.currentIndex = current + 1
            promote(preloaded, core: &core)
            return (preloaded, current + 1)
        }
        guard let (preloaded, index) = promoted else { return false }
        if let item = currentItem { hub.send(.currentItemChanged(index: index, item: item)) }
        announce(preloaded)
        preloaded.session.activate()
        return true
    }

    /// The current session `id` ended or failed on its own: the queue goes on with the next
    /// item, or the play ends with `final`. Engine thread.
    private func advance(from id: Int, final: PlayerState) {
        enum Step {
            case finish
            case next(PlaybackSession, Int, QueueItem, Preloaded?, failed: QueueItem?, stale: PlaybackSession?)
        }
        let step = core.withEngineLock { core -> Step? in
            guard core.sessionID == id else { return nil }
            guard let current = core.currentIndex, current + 1 < core.queue.count else { return .finish }
            let failed: QueueItem? = if case .failed = final { core.queue[current] } else { nil }
            if let session = core.session { core.retired.append(session) }
            let item = core.queue[current + 1]
            core.currentIndex = current + 1
            var stale: PlaybackSession?
            if let preloaded = core.preloaded {
                if preloaded.itemID == item.id {
                    promote(preloaded, core: &core)
                    return .next(preloaded.session, preloaded.sessionID, item, preloaded, failed: failed, stale: nil)
                }
                stale = preloaded.session
                core.preloaded = nil
            }
            let newID = core.makeSessionID()
            let session = makeSession(item, id: newID, startTime: nil, preload: false, core: &core)
            core.session = session
            core.sessionID = newID
            core.format = nil
            core.duration = nil
            core.metadata = nil
            return .next(session, newID, item, nil, failed: failed, stale: stale)
        }
        switch step {
        case nil:
            return
        case .finish:
            update(state: final, sessionID: id)
        case .next(let session, let newID, let item, let preloaded, let failed, let stale)?:
            stale?.stop()
            if let failed, case .failed(let error) = final { hub.send(.itemFailed(failed, error)) }
            let index = currentIndex ?? 0
            hub.send(.currentItemChanged(index: index, item: item))
            if let preloaded {
                if case .failed = preloaded.phase {
                    // Failed while preloading: skipped like any failing item, without a failed
                    // state (that would read as the end of the whole queue).
                    advance(from: newID, final: preloaded.phase)
                    return
                }
                announce(preloaded)
                update(state: preloaded.phase, sessionID: newID)
                session.activate()
            } else {
                update(state: .connecting, sessionID: newID)
                session.start()
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
    /// and the buffers. Returns once they are gone. The queue stays; ``play(itemAt:)`` plays
    /// from it again.
    public func stop() {
        commandLock.withEngineLock { _ in stopLocked() }
    }

    /// ``stop()`` under `commandLock`.
    private func stopLocked() {
        let hadSession = current != nil
        let id = releaseEngine()
        if hadSession {
            update(state: .idle, sessionID: id)
        }
    }

    /// Stops every session and closes the sink. Returns the session id that later reports use.
    private func releaseEngine() -> Int {
        let (sessions, sink, id) = core.withEngineLock { core in
            defer { core.sink = nil }
            let sessions = core.takeSessions()
            return (sessions, core.sink, core.sessionID)
        }
        for session in sessions { session.stop() }
        sink?.close()
        return id
    }

    /// Continues playing from `seconds` into the track. The reported position changes at once;
    /// audio follows as soon as the new position is decoded. After the track ended, it plays
    /// again from there.
    public func seek(to seconds: Double) {
        guard seconds.isFinite, let session = current else { return }
        if !session.seek(to: seconds) {
            commandLock.withEngineLock { _ in
                guard let index = currentIndex, current === session else { return }
                startItem(at: index, startTime: max(seconds, 0))
            }
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
        hub.stream { .stateChanged(self.state) }
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
        if recordPreloaded(report, from: id) { return }
        switch report {
        case .state(let state):
            switch state {
            case .ended, .failed: advance(from: id, final: state)
            default: update(state: state, sessionID: id)
            }
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
        case .nearingEnd:
            preloadNext(after: id)
        }
    }

    /// Keeps what a preloaded session reports, to announce once it plays.
    /// - Returns: `true` if the report was the preloaded session's.
    private func recordPreloaded(_ report: PlaybackSession.Report, from id: Int) -> Bool {
        core.withEngineLock { core in
            guard core.preloaded?.sessionID == id else { return false }
            switch report {
            case .state(let state): core.preloaded?.phase = state
            case .format(let format): core.preloaded?.format = format
            case .duration(let seconds): core.preloaded?.duration = seconds
            case .metadata(let metadata): core.preloaded?.metadata = metadata
            default: break
            }
            return true
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
