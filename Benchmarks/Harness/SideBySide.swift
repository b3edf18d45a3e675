import StreamPlay

/// Players run at the same time, each on its own sink: for measurements bounded by the link or
/// by real time (throttled links, drops, CPU and memory), not by start-up latency.
final class SideBySide {
    /// One player of the run.
    final class Run {
        let subject: Subject
        let sink: BenchSink
        let ask: Double
        /// Frames the sink's monitor had delivered at the ask: where the trace starts.
        let askFrame: Int
        let child: ChildProcess?
        private(set) var end: Double?
        /// For the library: what the Player itself counted, to set beside the recording.
        private(set) var statistics: PlaybackStatistics?
        /// For the library: whether the play failed.
        private(set) var failed = false
        /// For the library: the sink's underflows before the ask (the count runs for as long
        /// as the Player's output is open, across plays).
        private let underflowsAtAsk: Int

        /// For the library: the underflows the sink counted during this play (none known if
        /// it failed: a failed play closes the output, and its count with it).
        var underflows: Int? {
            guard child == nil, !failed else { return nil }
            return statistics.map { max($0.underflowCount - underflowsAtAsk, 0) }
        }

        init(subject: Subject, sink: BenchSink, ask: Double, askFrame: Int, child: ChildProcess?) {
            self.subject = subject
            self.sink = sink
            self.ask = ask
            self.askFrame = askFrame
            self.child = child
            underflowsAtAsk = child == nil ? sink.libraryPlayer.underflowCount : 0
        }

        /// Checks (and remembers) whether the player has finished by itself.
        func poll() -> Bool {
            if end != nil { return true }
            let done: Bool
            if let child {
                done = child.hasExited
            } else {
                done = MonotonicClock.now() - ask > 0.5 && sink.libraryPlayer.state.isFinal
            }
            if done {
                end = MonotonicClock.now()
                if child == nil { noteLibraryOutcome() }
            }
            return done
        }

        func stop() {
            if child == nil, end == nil { noteLibraryOutcome() }
            if let child { child.terminate() } else { sink.libraryPlayer.stop() }
            if end == nil { end = MonotonicClock.now() }
        }

        private func noteLibraryOutcome() {
            let player = sink.libraryPlayer
            statistics = player.statistics
            if case .failed = player.state { failed = true }
        }

        /// What the sink's monitor heard from the ask to the end. With several sinks busy at
        /// once the monitors' sample clocks can slip, so the first sound is timed by the arrival
        /// of the read that carried it (at most one read, about 5 ms, late).
        func trace() -> PlaybackTrace? {
            guard end != nil else { return nil }
            let recorder = sink.recorder
            MonotonicClock.sleep(0.3)
            let (first, samples) = recorder.samples(frames: askFrame..<recorder.framesReceived)
            guard var trace = PlaybackTrace(samples: samples, firstFrame: first, ask: askFrame, rate: recorder.rate),
                  let heard = recorder.arrivalTime(ofFrame: askFrame + Int(trace.firstSound * Double(recorder.rate)))
            else { return nil }
            trace.firstSound = heard - ask
            return trace
        }
    }

    let runs: [Run]

    /// The subjects that play side by side, one sink each: the pacat floor only with `floor`.
    static func playing(_ subjects: [Subject], floor: [String]?) -> [Subject] {
        subjects.filter { $0 != .pacatFloor || floor != nil }
    }

    /// Starts every subject on its own sink, playing the URL `url` gives it; the pacat floor,
    /// which plays no URL, runs `floor` (and is left out without it).
    init(_ subjects: [Subject], context: BenchContext, floor: [String]? = nil,
         url: (Subject) -> String) throws {
        let subjects = Self.playing(subjects, floor: floor)
        let sinks = try context.sinks(subjects.count)
        sinks.forEach(context.settle)
        var runs: [Run] = []
        for (subject, sink) in zip(subjects, sinks) {
            let askFrame = sink.recorder.framesReceived
            let ask = MonotonicClock.now()
            if subject == .library {
                let run = Run(subject: subject, sink: sink, ask: ask, askFrame: askFrame, child: nil)
                sink.libraryPlayer.play(.remote(url(subject)))
                runs.append(run)
            } else if let command = subject == .pacatFloor ? floor
                        : subject.command(url: url(subject), streamplay: context.streamplay) {
                let child = try ChildProcess(command, environment: subject.environment(sink: sink.name))
                runs.append(Run(subject: subject, sink: sink, ask: ask, askFrame: askFrame, child: child))
            }
        }
        self.runs = runs
    }

    /// Waits until every player has finished by itself, or stops the rest at `timeout`.
    func waitForAll(timeout: Double) {
        let deadline = MonotonicClock.now() + timeout
        while !runs.allSatisfy({ $0.poll() }) {
            if MonotonicClock.now() >= deadline {
                runs.forEach { $0.stop() }
                return
            }
            MonotonicClock.sleep(0.01)
        }
    }
}
