import Synchronization

/// One play's ``PlaybackStateMachine`` under its lock, the commands control threads post to it,
/// and what it decides carried out in order, after the lock is released.
///
/// Shared by the threads of one ``PlaybackSession``: control threads post pauses, seeks and
/// stops; the decoder thread takes its turns and reports its events; ``TrackOutput`` starts and
/// ends output. Each decides under the one lock (``decide(_:)``), and the sink and the player
/// hear of it after the lock is released: a sink's own code never runs under the lock.
final class PlaybackControl: Sendable {
    /// Commands from control threads, taken by the decoder thread, and the machine.
    struct Commands {
        var stopRequested = false
        /// Set, under this lock, just before ``TrackOutput/open(format:state:)`` opens the sink:
        /// from then on a stop must interrupt the sink, which the decoder thread may be blocked
        /// in. Taken under the same lock as `stopRequested`, so a stop either sees it or is seen
        /// before the sink is opened.
        var claimedSink = false
        /// Where the play is, and whether the listener paused it.
        var machine = PlaybackStateMachine()
        /// What was decided and is not carried out yet, in order (see ``decide(_:)``).
        var outbox: [Effect] = []
        /// Whether a thread is carrying out the outbox.
        var carryingOut = false
    }

    /// What is carried out after a decision, with no lock held.
    enum Effect: Sendable {
        case machine(PlaybackStateMachine.Action)
        case report(PlaybackSession.Report)
    }

    let commands = Mutex(Commands())
    /// Where the machine's sink actions go.
    let sink: any AudioSink
    /// Hands a report to the player. Called with no lock held, in the order decided; only the
    /// input thread's stream metadata goes to the player another way.
    let notifyPlayer: @Sendable (PlaybackSession.Report) -> Void
    /// Rebuffers of this play so far, and their length: written as they end, read by any thread.
    let rebuffers = Atomic<Int>(0)
    let rebufferMilliseconds = Atomic<Int>(0)

    init(sink: any AudioSink, notifyPlayer: @escaping @Sendable (PlaybackSession.Report) -> Void) {
        self.sink = sink
        self.notifyPlayer = notifyPlayer
    }

    /// Whether the play was asked to stop.
    var isStopRequested: Bool { commands.withEngineLock { $0.stopRequested } }

    /// Asks the play to stop. Returns whether the sink was claimed (see
    /// ``Commands/claimedSink``): then the decoder thread may be blocked in it.
    func requestStop() -> Bool {
        commands.withEngineLock { commands in
            commands.stopRequested = true
            return commands.claimedSink
        }
    }

    /// Claims the sink for the decoder thread, unless a stop came first (`false`).
    func claimSink() -> Bool {
        commands.withEngineLock { commands in
            guard !commands.stopRequested else { return false }
            commands.claimedSink = true
            return true
        }
    }

    /// Tells the state machine something that has no actions, or asks it, under the lock.
    func withMachine<Result>(_ body: (inout PlaybackStateMachine) -> Result) -> Result {
        commands.withEngineLock { body(&$0.machine) }
    }

    /// Whether a seek or a stop waits for the decoder thread: the audio it is writing is not
    /// wanted any more.
    var hasPendingSeekOrStop: Bool {
        commands.withEngineLock { $0.stopRequested || $0.machine.seekTarget != nil }
    }

    /// Lets `body` decide under the commands lock, then carries out what it decided after
    /// releasing the lock.
    ///
    /// Effects are carried out in the order they were decided, whichever thread decided them:
    /// they go to an outbox, and the thread that finds nobody carrying it out empties it (others
    /// leave theirs to it). A pause from a control thread and a phase change on the decoder
    /// thread therefore reach the sink and the player in the order the machine took them, and a
    /// report that calls back into the session (a stop, a seek) only adds to the outbox.
    @discardableResult
    func decide<Result>(_ body: (inout Commands) -> (Result, [Effect])) -> Result {
        let (result, carryOut) = commands.withEngineLock { commands -> (Result, Bool) in
            let (result, effects) = body(&commands)
            commands.outbox.append(contentsOf: effects)
            guard !commands.carryingOut, !commands.outbox.isEmpty else { return (result, false) }
            commands.carryingOut = true
            return (result, true)
        }
        if carryOut { carryOutOutbox() }
        return result
    }

    /// Lets the state machine decide, and carries out its actions (see ``decide(_:)``).
    func decide(_ event: (inout PlaybackStateMachine) -> [PlaybackStateMachine.Action]) {
        decide { commands in ((), event(&commands.machine).map(Effect.machine)) }
    }

    /// Lets the state machine take one of the decoder thread's events, carries out its actions
    /// (see ``decide(_:)``), and keeps `state`'s copy of the output gate as the event left it.
    @discardableResult
    func decide<Result>(updating state: DecodeState,
                        _ body: (inout Commands) -> (Result, [PlaybackStateMachine.Action])) -> Result {
        let (result, output) = decide { commands -> ((Result, OutputGate), [Effect]) in
            let (result, actions) = body(&commands)
            return ((result, commands.machine.output), actions.map(Effect.machine))
        }
        state.output = output
        return result
    }

    /// ``decide(updating:_:)`` for an event with no answer but its actions.
    func decide(updating state: DecodeState, _ event: (inout PlaybackStateMachine) -> [PlaybackStateMachine.Action]) {
        decide(updating: state) { commands in ((), event(&commands.machine)) }
    }

    /// Tells the player something, in order with the state machine's reports.
    func report(_ report: PlaybackSession.Report) {
        decide { _ in ((), [.report(report)]) }
    }

    /// Empties the outbox, batch by batch, until nothing is left; then lets go of it.
    private func carryOutOutbox() {
        while true {
            let batch = commands.withEngineLock { commands -> [Effect] in
                let batch = commands.outbox
                commands.outbox.removeAll(keepingCapacity: true)
                if batch.isEmpty { commands.carryingOut = false }
                return batch
            }
            if batch.isEmpty { return }
            for effect in batch {
                switch effect {
                case .machine(.startSink): sink.start()
                case .machine(.pauseSink): sink.pause()
                case .machine(.report(let state)): notifyPlayer(.state(state))
                case .machine(.reportBufferingProgress(let fraction)): notifyPlayer(.bufferingProgress(fraction))
                case .machine(.rebufferEnded(let seconds, let told)):
                    rebuffers.add(1, ordering: .relaxed)
                    rebufferMilliseconds.add(Int(seconds * 1000), ordering: .relaxed)
                    if told { notifyPlayer(.rebuffered(seconds)) }
                case .report(let report): notifyPlayer(report)
                }
            }
        }
    }
}
