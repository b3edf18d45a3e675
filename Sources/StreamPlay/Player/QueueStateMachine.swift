/// What the queue needs of a play session besides a handle to start, stop and activate it.
protocol QueueSession: AnyObject, Sendable {
    /// The format of a preloaded session's first audio, once decoded and waiting.
    var readyFormat: AudioFormat? { get }
}

/// The play queue's decisions: which item plays, which one is opened ahead, what follows an
/// item's end, a failure or a command, and which events say so.
///
/// A value, in the manner of async-http-client's state machines: each command or session report
/// goes in, and the actions to carry out come back, for the ``Player`` to run after it released
/// its lock (stopping a session joins its threads, which must never happen under the lock). It
/// holds the sessions as opaque handles, so tests drive it with stand-ins, no threads and no I/O.
///
/// Sessions are told apart by id: each gets a new one, and a report from any id other than the
/// current one's (a session already replaced) changes nothing, except a preloaded session's,
/// which is kept to be announced when that session plays.
///
/// A gapless hand-off is announced when it is heard, not when it is written: the next item
/// takes the sink at the moment the current one wrote its last frame, while the sink still
/// holds that item's tail (up to ``PlayerConfiguration/targetLatency``). Until the next
/// item's session reports its first audio heard, ``currentItemChanged`` and what that session
/// reports wait in ``unheard``, and ``audible`` (the index, format, duration and metadata a
/// listener is told) stays on the item still heard, as MPD moves its current song at the
/// chunk where the next one begins.
struct QueueStateMachine<Session: QueueSession> {
    /// An item to add: what plays, from where, for how long, and who renews its URL.
    struct Entry {
        var location: MediaLocation
        var startTime: Double = 0
        var length: Double?
        var urlRefresher: URLRefresher?
    }

    /// What a new session is made for; the factory makes it and starts nothing.
    struct SessionRequest {
        var item: QueueItem
        var urlRefresher: URLRefresher?
        /// The id its reports carry.
        var id: Int
        /// Where to start: the item's own start when `nil`.
        var startTime: Double?
        /// Opened ahead as the next item: it decodes its first audio, then waits for ``Action/activate(_:)``.
        var preload: Bool
    }

    typealias SessionFactory = (SessionRequest) -> Session

    /// What the player carries out, in order, with its lock released.
    enum Action {
        /// Stop the session and wait for its threads.
        case stop(Session)
        /// The track changed by a command: the sink drops what the replaced track queued.
        case beginNewTrack
        /// Apply the player's volume to the sink.
        case applyVolume
        case start(Session)
        /// Let a preloaded session take the sink.
        case activate(Session)
        /// Close the sink: nothing plays any more.
        case closeSink
        case send(PlayerEvent)
        /// The sessions stopped above are gone: now make the item at `index` current (through
        /// ``completeSwitch(to:startTime:make:)``). Until then nothing new plays, and the
        /// preloaded session's reports are still only kept.
        case completeSwitch(index: Int, startTime: Double?)
    }

    /// The next item, opened ahead, and what it reported meanwhile.
    private struct Preloaded {
        var session: Session
        var sessionID: Int
        var itemID: Int
        var format: AudioFormat?
        var duration: Double?
        var metadata: StreamMetadata?
        var phase: PlayerState = .connecting
    }

    private(set) var items: [QueueItem] = []
    /// The index of the item playing (or paused, or last played).
    private(set) var currentIndex: Int?
    private(set) var state: PlayerState = .idle
    private(set) var format: AudioFormat?
    private(set) var duration: Double?
    private(set) var metadata: StreamMetadata?
    /// The session of the current item.
    private(set) var current: Session?
    private var currentID = 0
    private var lastSessionID = 0
    private var lastItemID = 0
    private var refreshers: [Int: URLRefresher] = [:]
    private var preloaded: Preloaded?
    /// Sessions that ended on their own thread, to be stopped from another.
    private var retired: [Session] = []
    /// Hand-offs written to the sink and not heard yet, oldest first.
    private var unheard: [UnheardHandOff] = []

    /// What a listener is told plays: the item, its format, duration and metadata.
    struct Audible {
        var index: Int?
        var format: AudioFormat?
        var duration: Double?
        var metadata: StreamMetadata?
        /// The session that wrote it.
        var session: Session?
    }

    /// A gapless hand-off whose first audio the sink has not played yet.
    private struct UnheardHandOff {
        /// The session that took the sink.
        var session: Session
        var sessionID: Int
        /// What was heard until then: the item before.
        var before: Audible
        /// What to send once it is heard: the item change, then what its session reported.
        var events: [PlayerEvent]
    }

    var currentItem: QueueItem? { currentIndex.map { items[$0] } }

    /// What a listener is told plays: the current item, or while a gapless hand-off is not
    /// heard yet, the item before it.
    var audible: Audible {
        unheard.first?.before
            ?? Audible(index: currentIndex, format: format, duration: duration, metadata: metadata, session: current)
    }

    /// The item at ``audible``'s index.
    var audibleItem: QueueItem? { audible.index.flatMap { items.indices.contains($0) ? items[$0] : nil } }

    /// While a gapless hand-off is not heard yet: the session of the item heard, and the session
    /// that took the sink after it (its audio is queued behind the other's tail).
    var unheardHandOff: (heard: Session, next: Session)? {
        guard let first = unheard.first, let heard = first.before.session else { return nil }
        return (heard, first.session)
    }

    // MARK: Commands

    /// Replaces the queue with `entries` and plays the first; stops when there is none.
    mutating func play(_ entries: [Entry], make: SessionFactory) -> [Action] {
        refreshers = [:]
        items = []
        for entry in entries { items.append(makeItem(entry)) }
        currentIndex = nil
        return items.isEmpty ? stop() : startItem(at: 0, make: make)
    }

    /// Whatever played ends quietly and the queue empties: the one state reported is `error`.
    mutating func fail(_ error: PlayerError) -> [Action] {
        let actions = releaseEngine()
        items = []
        currentIndex = nil
        return actions + setState(.failed(error))
    }

    /// Adds an item at the end; it plays in its turn.
    mutating func enqueue(_ entry: Entry) -> (QueueItem, [Action]) {
        let item = makeItem(entry)
        items.append(item)
        return (item, dropStalePreload())
    }

    /// Inserts an item at `index`, clamped to the queue.
    mutating func insert(_ entry: Entry, at index: Int) -> (QueueItem, [Action]) {
        // The announcements waiting carry indices this shifts: they go first.
        let announced = announceUnheard()
        let item = makeItem(entry)
        let position = min(max(index, 0), items.count)
        items.insert(item, at: position)
        if let current = currentIndex, position <= current { currentIndex = current + 1 }
        return (item, announced + dropStalePreload())
    }

    /// Removes the item at `index`. Removing the one that plays goes on with the one after it,
    /// or stops when it was the last.
    mutating func remove(at index: Int, make: SessionFactory) -> [Action] {
        guard items.indices.contains(index) else { return dropStalePreload() }
        // The announcements waiting carry indices this shifts: they go first.
        let announced = announceUnheard()
        let item = items.remove(at: index)
        refreshers[item.id] = nil
        guard let currentIndex else { return announced + dropStalePreload() }
        if index < currentIndex {
            self.currentIndex = currentIndex - 1
        } else if index == currentIndex {
            let active = current != nil && !state.isFinal
            self.currentIndex = nil
            if active { return announced + (index < items.count ? startItem(at: index, make: make) : stop()) }
        }
        return announced + dropStalePreload()
    }

    /// Stops and empties the queue.
    mutating func clear() -> [Action] {
        let actions = stop()
        items = []
        currentIndex = nil
        refreshers = [:]
        return actions
    }

    /// Plays the item at `index` from `startTime` (its own start when `nil`).
    mutating func playItem(at index: Int, startTime: Double? = nil, make: SessionFactory) -> [Action] {
        guard items.indices.contains(index) else { return [] }
        return startItem(at: index, startTime: startTime, make: make)
    }

    /// Plays the item `offset` places from the current one; `nil` when there is none.
    /// While a gapless hand-off is not heard yet, the item heard is the one stepped from.
    mutating func step(by offset: Int, make: SessionFactory) -> [Action]? {
        guard let index = audible.index, items.indices.contains(index + offset) else { return nil }
        return startItem(at: index + offset, make: make)
    }

    /// A seek while a gapless hand-off is not heard yet: it means the item heard, which plays
    /// again from `seconds`. `nil` when every hand-off was heard (the current session seeks).
    mutating func seekAudible(to seconds: Double, make: SessionFactory) -> [Action]? {
        guard let index = unheard.first?.before.index, items.indices.contains(index) else { return nil }
        return startItem(at: index, startTime: max(seconds, 0), make: make)
    }

    /// A seek after `session`'s track ended: the item plays again from `seconds`, if `session` is
    /// still the current one.
    mutating func replay(_ session: Session, from seconds: Double, make: SessionFactory) -> [Action] {
        guard let currentIndex, current === session else { return [] }
        return startItem(at: currentIndex, startTime: max(seconds, 0), make: make)
    }

    /// Stops playing and closes the sink; the queue stays.
    mutating func stop() -> [Action] {
        let hadSession = current != nil
        let actions = releaseEngine()
        return hadSession ? actions + setState(.idle) : actions
    }

    /// Takes every session out, for the caller to stop: reports from them are stale from now on.
    mutating func takeSessions() -> [Session] {
        defer {
            current = nil
            preloaded = nil
            retired = []
            // Never heard: the sink's queue goes with the sessions.
            unheard = []
            currentID = makeSessionID()
        }
        return [current, preloaded?.session].compactMap { $0 } + retired
    }

    // MARK: Reports from sessions

    /// What session `id` reported.
    mutating func receive(_ report: PlaybackSession.Report, from id: Int, make: SessionFactory) -> [Action] {
        if preloaded?.sessionID == id {
            switch report {
            case .state(let state): preloaded?.phase = state
            case .format(let format): preloaded?.format = format
            case .duration(let seconds): preloaded?.duration = seconds
            case .metadata(let metadata): preloaded?.metadata = metadata
            default: break
            }
            return []
        }
        if case .nearingEnd = report { return preloadNext(after: id, make: make) }
        if case .firstAudioHeard = report { return announceUnheard(through: id) }
        guard id == currentID else { return [] }
        if case .state(.ended) = report { return announceUnheard() + advance(from: id, final: .ended, make: make) }
        if case .state(.failed(let error)) = report {
            return announceUnheard() + advance(from: id, final: .failed(error), make: make)
        }
        let actions = decide(report)
        guard !unheard.isEmpty else { return actions }
        // Said of an item not heard yet: it waits for that item's announcement.
        unheard[unheard.count - 1].events += actions.compactMap { if case .send(let event) = $0 { event } else { nil } }
        return actions.filter { if case .send = $0 { false } else { true } }
    }

    /// The current session's report, other than its end.
    private mutating func decide(_ report: PlaybackSession.Report) -> [Action] {
        switch report {
        case .state(let state):
            return setState(state)
        case .format(let format):
            self.format = format
            return [.send(.formatKnown(format))]
        case .duration(let seconds):
            duration = seconds
            return [.send(.durationKnown(seconds))]
        case .metadata(let metadata):
            self.metadata = metadata
            return [.send(.metadata(metadata))]
        case .bufferingProgress(let fraction):
            return [.send(.bufferingProgress(fraction))]
        case .seeked(let seconds):
            return [.send(.seeked(to: seconds))]
        case .seekRefused(let error):
            return [.send(.seekRefused(error))]
        case .rebuffered(let seconds):
            return [.send(.rebuffered(seconds: seconds))]
        case .nearingEnd, .firstAudioHeard:
            return []
        }
    }

    /// Sends what waited for the hand-offs up to session `id`'s (all of them when `nil`): that
    /// session's first audio was heard, so the ones before it were too.
    private mutating func announceUnheard(through id: Int? = nil) -> [Action] {
        let count = id.map { id in unheard.firstIndex { $0.sessionID == id }.map { $0 + 1 } ?? 0 } ?? unheard.count
        let announced = unheard.prefix(count).flatMap(\.events)
        unheard.removeFirst(count)
        return announced.map { .send($0) }
    }

    /// Asked by the current session `id` at its end: whether the preloaded next item, decoded
    /// and waiting in the same `format`, takes over the sink now, without a gap.
    mutating func handOff(from id: Int, format: AudioFormat) -> (Bool, [Action]) {
        guard id == currentID, let next = preloaded, let index = currentIndex, index + 1 < items.count,
              items[index + 1].id == next.itemID, next.session.readyFormat == format else { return (false, []) }
        // The session's own format, not `self.format`: its format report may still be on its
        // way (reports go through the session's outbox), the hand-off comes straight from it.
        let before = Audible(index: index, format: format, duration: duration, metadata: metadata, session: current)
        if let current { retired.append(current) }
        currentIndex = index + 1
        promote(next)
        // Announced when heard (see the type's description).
        let events = [PlayerEvent.currentItemChanged(index: index + 1, item: items[index + 1])]
            + reportedEvents(of: next)
        unheard.append(UnheardHandOff(session: next.session, sessionID: next.sessionID, before: before, events: events))
        return (true, [.activate(next.session)])
    }

    // MARK: Steps

    /// Switches to the item at `index`, by a command: first the sessions playing are stopped
    /// (and the preloaded one, unless it is that item's and starts at its own start), then
    /// ``completeSwitch(to:startTime:make:)`` plays it. Two steps, so that nothing new plays,
    /// reports or touches the sink while the old sessions' threads are joined.
    private mutating func startItem(at index: Int, startTime: Double? = nil, make: SessionFactory) -> [Action] {
        let keep = preloaded.flatMap { startTime == nil && $0.itemID == items[index].id ? $0 : nil }
        let stale = preloaded.flatMap { $0.itemID == keep?.itemID ? nil : $0.session }
        let stopping = [current, stale].compactMap { $0 } + retired
        current = nil
        preloaded = keep
        retired = []
        // Never heard: the new track drops the sink's queue.
        unheard = []
        // Reports the stopped sessions still send are stale from here on.
        currentID = makeSessionID()
        var actions: [Action] = stopping.map { .stop($0) }
        if !stopping.isEmpty { actions.append(.beginNewTrack) }
        return actions + [.completeSwitch(index: index, startTime: startTime)]
    }

    /// The second step of a switch: the item at `index` plays, from the preloaded session when
    /// it is that item's, from a new one otherwise.
    mutating func completeSwitch(to index: Int, startTime: Double?, make: SessionFactory) -> [Action] {
        guard items.indices.contains(index) else { return [] }
        currentIndex = index
        let item = items[index]
        // The first step kept the preloaded session only when it is this item's, at its start.
        let keep = preloaded
        var actions: [Action] = []
        if let keep {
            promote(keep)
            actions += [.applyVolume, .send(.currentItemChanged(index: index, item: item))]
            if case .failed = keep.phase {
                // Failed while preloading: skipped like any failing item.
                return actions + advance(from: keep.sessionID, final: keep.phase, make: make)
            }
            return actions + reportedEvents(of: keep).map(Action.send) + setState(keep.phase)
                + [.activate(keep.session)]
        }
        let session = makeCurrent(item, startTime: startTime, make: make)
        return actions + [.applyVolume, .send(.currentItemChanged(index: index, item: item))]
            + setState(.connecting) + [.start(session)]
    }

    /// The current session `id` ended or failed on its own (on its own thread, so it is retired,
    /// not stopped): the queue goes on with the next item, or the play ends with `final`.
    private mutating func advance(from id: Int, final: PlayerState, make: SessionFactory) -> [Action] {
        guard id == currentID else { return [] }
        guard let index = currentIndex, index + 1 < items.count else { return setState(final) }
        var actions: [Action] = []
        if let current { retired.append(current) }
        let failedItem = items[index]
        let item = items[index + 1]
        currentIndex = index + 1
        var promoted: Preloaded?
        if let next = preloaded {
            if next.itemID == item.id {
                promote(next)
                promoted = next
            } else {
                actions.append(.stop(next.session))
                preloaded = nil
            }
        }
        if case .failed(let error) = final { actions.append(.send(.itemFailed(failedItem, error))) }
        actions.append(.send(.currentItemChanged(index: index + 1, item: item)))
        guard let promoted else {
            let session = makeCurrent(item, startTime: nil, make: make)
            return actions + setState(.connecting) + [.start(session)]
        }
        if case .failed = promoted.phase {
            // Failed while preloading: skipped like any failing item, without a failed state
            // (that would read as the end of the whole queue).
            return actions + advance(from: promoted.sessionID, final: promoted.phase, make: make)
        }
        return actions + reportedEvents(of: promoted).map(Action.send) + setState(promoted.phase)
            + [.activate(promoted.session)]
    }

    /// Opens the item after the current one, ahead of the current one's end; stops the sessions
    /// that ended before.
    private mutating func preloadNext(after id: Int, make: SessionFactory) -> [Action] {
        var actions: [Action] = retired.map { .stop($0) }
        retired = []
        guard id == currentID, preloaded == nil, let index = currentIndex, index + 1 < items.count else { return actions }
        let item = items[index + 1]
        let preloadID = makeSessionID()
        let session = make(SessionRequest(item: item, urlRefresher: refreshers[item.id], id: preloadID,
                                          startTime: nil, preload: true))
        preloaded = Preloaded(session: session, sessionID: preloadID, itemID: item.id)
        actions.append(.start(session))
        return actions
    }

    /// Stops a preloaded session whose item is no longer the next one (the queue changed).
    private mutating func dropStalePreload() -> [Action] {
        guard let next = preloaded else { return [] }
        if let index = currentIndex, index + 1 < items.count, items[index + 1].id == next.itemID { return [] }
        preloaded = nil
        return [.stop(next.session)]
    }

    /// Stops every session and closes the sink.
    private mutating func releaseEngine() -> [Action] {
        takeSessions().map { .stop($0) } + [.closeSink]
    }

    /// A new session for `item`, made current.
    private mutating func makeCurrent(_ item: QueueItem, startTime: Double?, make: SessionFactory) -> Session {
        let id = makeSessionID()
        let session = make(SessionRequest(item: item, urlRefresher: refreshers[item.id], id: id,
                                          startTime: startTime, preload: false))
        current = session
        currentID = id
        format = nil
        duration = nil
        metadata = nil
        return session
    }

    private mutating func promote(_ next: Preloaded) {
        current = next.session
        currentID = next.sessionID
        preloaded = nil
        format = next.format
        duration = next.duration
        metadata = next.metadata
    }

    /// The events of what a promoted session had reported while preloaded.
    private func reportedEvents(of next: Preloaded) -> [PlayerEvent] {
        var events: [PlayerEvent] = []
        if let format = next.format { events.append(.formatKnown(format)) }
        if let duration = next.duration { events.append(.durationKnown(duration)) }
        if let metadata = next.metadata { events.append(.metadata(metadata)) }
        return events
    }

    private mutating func setState(_ newState: PlayerState) -> [Action] {
        guard state != newState else { return [] }
        state = newState
        return [.send(.stateChanged(newState))]
    }

    private mutating func makeSessionID() -> Int {
        lastSessionID += 1
        return lastSessionID
    }

    private mutating func makeItem(_ entry: Entry) -> QueueItem {
        lastItemID += 1
        if let refresher = entry.urlRefresher { refreshers[lastItemID] = refresher }
        return QueueItem(id: lastItemID, location: entry.location, startTime: max(entry.startTime, 0), length: entry.length)
    }
}
