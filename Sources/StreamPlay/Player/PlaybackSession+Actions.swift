// Deciding under the commands lock and carrying out afterwards: the session's state machine,
// its reports, and the order they reach the sink and the player in.

extension PlaybackSession {
    /// What the session carries out after a decision, with no lock held.
    enum Effect: Sendable {
        case machine(PlaybackStateMachine.Action)
        case report(Report)
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
    func report(_ report: Report) {
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
                    countRebuffer(seconds)
                    if told { notifyPlayer(.rebuffered(seconds)) }
                case .report(let report): notifyPlayer(report)
                }
            }
        }
    }

    /// Pauses or resumes. The sink reacts at once; the decoder thread learns on its next turn.
    func setPaused(_ paused: Bool) {
        decide { paused ? $0.pause() : $0.resume() }
        wake.signal()
    }

    /// The play is over: `final` is what the listener is told last.
    func finish(_ final: PlaybackStateMachine.Phase) {
        decide { $0.finished(final) }
    }
}
