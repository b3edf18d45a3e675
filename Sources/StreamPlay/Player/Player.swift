import FoundationEssentials
import Synchronization

/// Plays audio from HTTP(S) URLs, HLS playlists and files: the controller a music player links.
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
    private typealias Queue = QueueStateMachine<PlaybackSession>

    /// What the lock guards: the queue's decisions, and the sink its sessions share.
    private struct Core {
        var queue = Queue()
        var sink: (any AudioSink)?
        var volume = 1.0
        /// The events the queue decided on and no thread has sent yet, in the order of its
        /// decisions (see ``deliverEvents()``).
        var undelivered: [PlayerEvent] = []
    }

    /// The configuration the player was made with.
    public let configuration: PlayerConfiguration
    private let core = Mutex(Core())
    /// Fans events out to every ``events`` stream.
    private let hub = Broadcaster<PlayerEvent>(buffered: 1024)
    /// Held while events go out, so that they go out in the order they were decided in; its
    /// value counts the events sent.
    ///
    /// Not a `Mutex<Void>`, and declared before `commandLock`: a lock's empty value has the
    /// address of whatever follows it, and ThreadSanitizer takes an access to that value for an
    /// access to the next lock's word (a false race between a command and a delivery).
    private let deliveryLock = Mutex(0)
    /// Held through the commands that stop sessions, so that two of them never interleave (each
    /// joins threads, which must not happen with `core` held). Engine threads never take it.
    /// The last stored property: see `deliveryLock`.
    private let commandLock = Mutex(())

    /// Creates a player. Nothing connects or starts until the first play, but the process begins
    /// opening libcurl (the dynamic loader's part of its load, most of its time) on a thread of
    /// its own: an app that makes its player at launch then does not wait for it at its first
    /// play. A player that makes no request (it plays only files) holds libcurl's memory for
    /// nothing.
    public init(configuration: PlayerConfiguration = PlayerConfiguration()) {
        self.configuration = configuration
        CurlRequest.beginOpening()
    }

    deinit {
        if EngineThread.isEngineThread {
            // The last reference went away inside a report, on an engine thread, which cannot
            // join itself: the stop happens on a thread of its own.
            let (sessions, sink) = core.withEngineLock { ($0.queue.takeSessions(), $0.sink) }
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
        let entry = Queue.Entry(location: location, startTime: startTime, length: length, urlRefresher: urlRefresher)
        command { $0.play([entry], make: $1) }
    }

    /// Replaces the queue with `locations` and plays them in turn, each following the one
    /// before without a gap; each from `startTime`, for `length` seconds at most.
    public func play(_ locations: [MediaLocation], startingAt startTime: Double = 0, length: Double? = nil) {
        let entries = locations.map { Queue.Entry(location: $0, startTime: startTime, length: length) }
        command { $0.play(entries, make: $1) }
    }

    /// Parses `text` as a URL or path and plays it; an unusable location ends in ``PlayerState/failed(_:)``.
    public func play(_ text: String, startingAt startTime: Double = 0, length: Double? = nil) {
        do {
            play(try MediaLocation(parsing: text), startingAt: startTime, length: length)
        } catch {
            // Whatever played before ends quietly: the one state reported is this failure.
            command { queue, _ in queue.fail(error) }
        }
    }

    // MARK: Queue

    /// The play queue, in order.
    public var queue: [QueueItem] { core.withEngineLock { $0.queue.items } }

    /// The index in ``queue`` of the item playing (or paused, or last played), if any. At a
    /// gapless change it moves when the next item's first audio is heard, with
    /// ``PlayerEvent/currentItemChanged(index:item:)``.
    public var currentIndex: Int? { core.withEngineLock { $0.queue.audible.index } }

    /// The item playing (or paused, or last played), if any; see ``currentIndex``.
    public var currentItem: QueueItem? { core.withEngineLock { $0.queue.audibleItem } }

    /// Adds `location` at the end of the queue. Playback does not start by itself: an item added
    /// while the queue plays is played in its turn.
    @discardableResult
    public func enqueue(_ location: MediaLocation, startingAt startTime: Double = 0, length: Double? = nil,
                        urlRefresher: URLRefresher? = nil) -> QueueItem {
        let entry = Queue.Entry(location: location, startTime: startTime, length: length, urlRefresher: urlRefresher)
        return command { queue, _ in queue.enqueue(entry) }
    }

    /// Inserts `location` at `index` (0 up to the queue's count; clamped).
    @discardableResult
    public func insert(_ location: MediaLocation, at index: Int, startingAt startTime: Double = 0,
                       length: Double? = nil) -> QueueItem {
        let entry = Queue.Entry(location: location, startTime: startTime, length: length)
        return command { queue, _ in queue.insert(entry, at: index) }
    }

    /// Removes the item at `index`. Removing the item that plays goes on with the one after it,
    /// or stops when it was the last.
    public func remove(at index: Int) {
        command { $0.remove(at: index, make: $1) }
    }

    /// Stops playback and empties the queue.
    public func clearQueue() {
        command { queue, _ in queue.clear() }
    }

    /// Plays the item at `index` of the queue from its start.
    public func play(itemAt index: Int) {
        command { $0.playItem(at: index, make: $1) }
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
        command { queue, make in
            guard let actions = queue.step(by: offset, make: make) else { return (false, []) }
            return (true, actions)
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
        command { queue, _ in queue.stop() }
    }

    /// Continues playing from `seconds` into the track. The reported position changes at once;
    /// audio follows as soon as the new position is decoded. After the track ended, it plays
    /// again from there.
    public func seek(to seconds: Double) {
        guard seconds.isFinite else { return }
        // In the tail of a track whose successor already took the sink: the seek is the tail's.
        let tailHeard = core.withEngineLock { $0.queue.unheardHandOff != nil }
        let seekedAudible = tailHeard && command { queue, make in
            guard let actions = queue.seekAudible(to: seconds, make: make) else { return (false, []) }
            return (true, actions)
        }
        guard !seekedAudible, let session = current else { return }
        if !session.seek(to: seconds) {
            command { $0.replay(session, from: seconds, make: $1) }
        }
    }

    // MARK: State

    /// The state of the current play.
    public var state: PlayerState { core.withEngineLock { $0.queue.state } }

    /// Seconds into the track of the audio being heard now (not merely decoded): frames handed to
    /// the sink minus the sink's latency. `nil` before the format is known.
    /// Through a gapless change, the item heard's position until the next one's first audio
    /// is heard and ``currentIndex`` moves to it: its end less the part of its tail still
    /// queued, and its end once the tail has played (the move follows within milliseconds).
    public var position: Double? {
        let (session, handOff) = core.withEngineLock { ($0.queue.current, $0.queue.unheardHandOff) }
        guard let handOff else { return session?.position }
        if let tail = handOff.next.secondsBeforeFirstAudio, let end = handOff.heard.writtenEnd {
            return max(end - tail, 0)
        }
        return handOff.next.position
    }

    /// The track's length in seconds, when known.
    public var duration: Double? { core.withEngineLock { $0.queue.audible.duration } }

    /// What the stream last said it plays (a radio station's ICY title and URL, or the title,
    /// artist and album of an MP3's ID3v2 tag), if anything.
    public var metadata: StreamMetadata? { core.withEngineLock { $0.queue.audible.metadata } }

    /// The PCM format of the track, once decoding began.
    public var format: AudioFormat? { core.withEngineLock { $0.queue.audible.format } }

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
        core.withEngineLock { $0.sink }?.underflowCount ?? 0
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

    private var current: PlaybackSession? { core.withEngineLock { $0.queue.current } }

    // MARK: Carrying out the queue's decisions

    /// Runs a command: the queue decides under the lock, and its actions run after, under
    /// `commandLock`, so that no two commands that stop sessions interleave.
    private func command(_ decide: (inout Queue, Queue.SessionFactory) -> [Action]) {
        commandLock.withEngineLock { _ in run(decide) }
    }

    private func command<Result: Sendable>(_ decide: (inout Queue, Queue.SessionFactory) -> (Result, [Action])) -> Result {
        commandLock.withEngineLock { _ in run(decide) }
    }

    private typealias Action = Queue.Action

    private func run(_ decide: (inout Queue, Queue.SessionFactory) -> [Action]) {
        run { queue, make in
            withoutActuallyEscaping(make) { make in ((), decide(&queue, make)) }
        }
    }

    /// Lets the queue decide under the `core` lock, then carries out its actions without it.
    private func run<Result: Sendable>(_ decide: (inout Queue, Queue.SessionFactory) -> (Result, [Action])) -> Result {
        let (result, actions, sink, volume) = core.withEngineLock { core in
            var sink = core.sink
            let (result, actions) = decide(&core.queue) { request in
                let shared = sink ?? configuration.output.makeSink(configuration: configuration)
                sink = shared
                return makeSession(request, sink: shared)
            }
            let closing = actions.contains { if case .closeSink = $0 { true } else { false } }
            core.sink = closing ? nil : sink
            for case .send(let event) in actions { core.undelivered.append(event) }
            return (result, actions, sink, core.volume)
        }
        for action in actions {
            switch action {
            case .stop(let session): session.stop()
            case .beginNewTrack: sink?.beginNewTrack()
            case .applyVolume: sink?.setVolume(volume)
            case .start(let session): session.start()
            case .activate(let session): session.activate()
            case .closeSink: sink?.close()
            case .send: deliverEvents()
            case .completeSwitch(let index, let startTime):
                run { $0.completeSwitch(to: index, startTime: startTime, make: $1) }
            }
        }
        return result
    }

    /// Sends every event decided so far and not yet sent, in the order of the decisions.
    ///
    /// Decisions are taken in order under the `core` lock, but their actions run after it, on
    /// whichever thread took them: a session that fails on its own thread the moment it is
    /// promoted would otherwise report the next item as current before the thread that
    /// promoted it reported that one. So a decision's events are queued under the lock, and
    /// the first thread to reach a `.send` sends all that are queued, its own and any later.
    private func deliverEvents() {
        deliveryLock.withEngineLock { sent in
            let events = core.withEngineLock { core in
                defer { core.undelivered = [] }
                return core.undelivered
            }
            for event in events { hub.send(event) }
            sent += events.count
        }
    }

    /// A session for a queue item, on the shared sink; starts nothing.
    private func makeSession(_ request: Queue.SessionRequest, sink: any AudioSink) -> PlaybackSession {
        let id = request.id
        return PlaybackSession(location: request.item.location, startTime: request.startTime ?? request.item.startTime,
                               length: request.item.length, sink: sink, configuration: configuration,
                               urlRefresher: request.urlRefresher, preload: request.preload,
                               handOff: { [weak self] format in self?.handOff(from: id, format: format) ?? false }) { [weak self] report in
            self?.run { $0.receive(report, from: id, make: $1) }
        }
    }

    /// Asked by the current session `id` at its end (on its decoder thread): whether the
    /// preloaded next item takes over the sink now, without a gap.
    private func handOff(from id: Int, format: AudioFormat) -> Bool {
        run { queue, _ in queue.handOff(from: id, format: format) }
    }
}
