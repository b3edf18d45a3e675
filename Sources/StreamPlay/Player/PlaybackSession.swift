import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// One play of one track, as the ``Player`` holds it: the commands it posts (a seek, a pause, a
/// stop) and what it reads (the position, the buffer, the statistics), with the decoder thread
/// that plays it, a ``DecodeLoop``.
///
/// Other threads only post commands (through ``playback``) and read the ``timeline``. What the
/// decoder thread does next, where the play is, and when output starts, pauses and ends are
/// ``PlaybackStateMachine``'s to decide, under the commands lock; ``PlaybackControl`` carries
/// out its actions after releasing it. The sink side is a ``TrackOutput``; what a location
/// stands for is ``PlaybackSourceResolver``'s.
final class PlaybackSession: QueueSession, Sendable {
    /// What the session tells its ``Player``.
    enum Report: Sendable {
        case state(PlayerState)
        case format(AudioFormat)
        case duration(Double)
        case bufferingProgress(Double)
        case seeked(Double)
        case metadata(StreamMetadata)
        case seekRefused(PlayerError)
        case rebuffered(Double)
        /// The end of the track is near (its input is complete and little audio is left): the
        /// time to open the next one.
        case nearingEnd
        /// The sink played this session's first frame: a gapless hand-off to it is heard.
        case firstAudioHeard
    }

    /// What the session plays, from where, and to which sink: its ``DecodeLoop``'s.
    var location: MediaLocation { decoding.location }
    var startTime: Double { decoding.startTime }
    var sink: any AudioSink { decoding.sink }
    /// The state machine under its lock, the commands, and the player's reports, in order.
    let playback: PlaybackControl
    /// The sink side: opening, writing, a new format, the ending and its hand-off.
    let trackOutput: TrackOutput
    /// Wakes the decoder thread: a command, or news from the input.
    let wake = ThreadSignal()
    /// Reports the track's names from its tags.
    let names: TrackNamesReporter
    /// Where the play is in the track: written by the decoder thread, read by any thread.
    let timeline = PlaybackTimeline()
    /// Watches for the first audio heard after an activation.
    let firstAudioWatch: FirstAudioWatch
    /// The decoder thread's work, which owns the input and the ring.
    let decoding: DecodeLoop
    let thread = Mutex<EngineThread?>(nil)

    /// - Parameters:
    ///   - preload: start as the next track: decode the first audio, then wait for ``activate()``.
    ///   - handOff: see ``TrackOutput/handOff``.
    init(location: MediaLocation, startTime: Double, length: Double?, sink: any AudioSink,
         configuration: PlayerConfiguration, urlRefresher: URLRefresher?,
         preload: Bool = false, handOff: (@Sendable (AudioFormat) -> Bool)? = nil,
         report: @escaping @Sendable (Report) -> Void) {
        playback = PlaybackControl(sink: sink, notifyPlayer: report)
        trackOutput = TrackOutput(playback: playback, sink: sink, timeline: timeline,
                                  configuration: configuration, wake: wake, handOff: handOff)
        firstAudioWatch = FirstAudioWatch(playback: playback, trackOutput: trackOutput)
        names = TrackNamesReporter(playback: playback, configuration: configuration)
        decoding = DecodeLoop(location: location, startTime: max(startTime, 0), length: length, sink: sink,
                              configuration: configuration, urlRefresher: urlRefresher, preload: preload,
                              playback: playback, trackOutput: trackOutput, timeline: timeline,
                              names: names, wake: wake)
    }

    /// Starts the decoder thread; it starts the input. Does nothing once stopped.
    func start() {
        thread.withEngineLock { thread in
            guard thread == nil, !isStopRequested else { return }
            thread = EngineThread(name: "sp-decoder") { [decoding] in decoding.run() }
        }
    }

    /// Lets a preloaded session take the sink and play.
    func activate() {
        decoding.activated.store(true, ordering: .releasing)
        wake.signal()
        firstAudioWatch.start()
    }

    /// The format of a preloaded session's first audio, when it is decoded and waiting.
    var readyFormat: AudioFormat? { decoding.waitingFormat.withEngineLock { $0 } }

    // MARK: Commands (any thread)

    /// Asks for audio from `seconds` on.
    /// - Returns: `false` if the track has already ended, so a seek needs a new session.
    func seek(to seconds: Double) -> Bool {
        let answer = playback.decide { commands -> (PlaybackStateMachine.SeekAnswer, [PlaybackControl.Effect]) in
            let answer = commands.machine.seek(to: seconds)
            guard answer == .refusedLive else { return (answer, []) }
            return (answer, [.report(.seekRefused(.seekNotSupported(reason: "\(location) is a live stream")))])
        }
        // A live stream's refusal leaves the audio under way alone.
        if answer == .refusedLive { return true }
        // Only a sink that takes audio can be blocked in a write; before that, an interrupt
        // would cut short the connection to the sound server, which only a stop may do.
        if timeline.isOpen { sink.interrupt() }
        wake.signal()
        return answer != .needsNewPlay
    }

    /// Ends the play and waits for the engine threads to finish.
    func stop() {
        let claimed = playback.requestStop()
        if claimed && !trackOutput.handedOff.load(ordering: .acquiring) { sink.interrupt() }
        wake.signal()
        names.wakeUp.signal()
        thread.withEngineLock { $0 }?.join()
        firstAudioWatch.stop()
    }

    /// Whether the play was asked to stop.
    var isStopRequested: Bool { playback.isStopRequested }

    /// Pauses or resumes. The sink reacts at once; the decoder thread learns on its next turn.
    func setPaused(_ paused: Bool) {
        playback.decide { paused ? $0.pause() : $0.resume() }
        wake.signal()
    }

    /// Seconds heard so far (``PlaybackTimeline/position(latency:)``); while a seek is
    /// pending, its target, and before the first audio, the start time if there is one.
    var position: Double? {
        if let target = playback.withMachine({ $0.shownSeekTarget }) { return target }
        return timeline.position { sink.latencyFrames } ?? (startTime > 0 ? startTime : nil)
    }

    /// Seconds of earlier audio the sink plays before this session's first frame: the tail of
    /// the track that handed the sink over. 0 once this session's audio is heard; `nil` before
    /// the format is known.
    var secondsBeforeFirstAudio: Double? { trackOutput.secondsBeforeFirstAudio }

    /// Seconds into the track where this session's audio ends: all that it wrote. Read after a
    /// gapless hand-off, when it writes no more; `nil` before the format is known.
    var writtenEnd: Double? { timeline.writtenEnd }

    /// Rebuffers and reconnects of this play so far.
    var statistics: (rebuffers: Int, rebufferSeconds: Double, reconnects: Int) {
        (playback.rebuffers.load(ordering: .relaxed),
         Double(playback.rebufferMilliseconds.load(ordering: .relaxed)) / 1000,
         decoding.reconnects.load(ordering: .relaxed))
    }

    /// How full the input buffer is, 0 to 1.
    var bufferFill: Double {
        Double(decoding.ring.available) / Double(decoding.ring.capacity)
    }
}
