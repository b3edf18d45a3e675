import Synchronization

/// The state an input thread shares with the decoder thread: commands one way, results the other.
///
/// Touched a few times per request (never per buffer), so a mutex is cheap enough here.
final class InputControl: Sendable {
    struct Restart: Sendable, Equatable {
        var offset: Int
        var generation: Int
        /// For a segmented input (HLS): the segment to start at; `offset` then counts from it.
        var segment: Int?
    }

    private struct State {
        var pendingRestart: Restart?
        var stopRequested = false
        var info: InputInfo?
        var outcome: (generation: Int, outcome: InputOutcome)?
        /// Offsets where a new stream begins (HLS discontinuities) in the current generation.
        var discontinuities: (generation: Int, offsets: [Int])?
    }

    private let state = Mutex(State())
    /// Bumped by every command, so that the input thread takes the lock only when there is one.
    /// It is bumped, and read by ``takeCommands(since:)``, with the lock held: the version the
    /// input thread records is then always that of the commands it took. (Read before the lock,
    /// a restart given in between was taken under the older version; the input thread then saw
    /// it once more as a new command, and an HLS segment was read, and played, twice.)
    private let commandVersion = Atomic<Int>(0)
    private let notifyDecoder: @Sendable () -> Void

    init(notifyDecoder: @escaping @Sendable () -> Void) {
        self.notifyDecoder = notifyDecoder
    }

    // MARK: Decoder side

    func requestRestart(_ restart: Restart) {
        state.withEngineLock {
            $0.pendingRestart = restart
            $0.outcome = nil
            commandVersion.add(1, ordering: .releasing)
        }
    }

    /// The first offset at or after `offset` where `generation`'s bytes begin a new stream
    /// (an HLS discontinuity): the decoder starts afresh there.
    func discontinuity(atOrAfter offset: Int, generation: Int) -> Int? {
        state.withEngineLock { state in
            guard let marks = state.discontinuities, marks.generation == generation else { return nil }
            return marks.offsets.first { $0 >= offset }
        }
    }

    func requestStop() {
        state.withEngineLock {
            $0.stopRequested = true
            commandVersion.add(1, ordering: .releasing)
        }
    }

    /// Response facts, once the first response arrived.
    var info: InputInfo? { state.withEngineLock { $0.info } }

    /// How `generation` ended, or `nil` while it is still running.
    func outcome(of generation: Int) -> InputOutcome? {
        state.withEngineLock { state in
            guard let outcome = state.outcome, outcome.generation == generation else { return nil }
            return outcome.outcome
        }
    }

    // MARK: Input side

    var stopRequested: Bool { state.withEngineLock { $0.stopRequested } }

    /// Whether to stop, and the restart asked for (taken: it is returned once). The lock is
    /// taken only when a command came since `seen` (the version the input thread last saw),
    /// not on every turn of the input loop.
    func takeCommands(since seen: inout Int) -> (stop: Bool, restart: Restart?) {
        guard commandVersion.load(ordering: .acquiring) != seen else { return (false, nil) }
        return state.withEngineLock { state in
            seen = commandVersion.load(ordering: .acquiring)
            defer { state.pendingRestart = nil }
            return (state.stopRequested, state.pendingRestart)
        }
    }

    /// Whether a command came since `seen`: lets a blocked input thread give up early.
    func hasCommands(since seen: Int) -> Bool {
        commandVersion.load(ordering: .acquiring) != seen
    }

    /// Records that a new stream begins at `offset` of `generation`'s bytes.
    func markDiscontinuity(at offset: Int, generation: Int) {
        state.withEngineLock { state in
            if state.discontinuities?.generation != generation { state.discontinuities = (generation, []) }
            // A segment read again after an interruption marks its offset again.
            if state.discontinuities?.offsets.last != offset { state.discontinuities?.offsets.append(offset) }
        }
    }

    func publish(info: InputInfo) {
        state.withEngineLock { $0.info = info }
        notifyDecoder()
    }

    func finish(generation: Int, with outcome: InputOutcome) {
        state.withEngineLock { $0.outcome = (generation, outcome) }
        notifyDecoder()
    }
}
