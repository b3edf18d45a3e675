/// Where decoded PCM goes: a sound server, a file, or nowhere.
///
/// The decoder thread calls ``prepare()``, ``open(format:)``, ``write(_:)``, ``start()``,
/// ``flush()`` and ``drain()``; control calls (``pause()``, ``start()``, ``interrupt()``, ``latencyFrames``,
/// ``setVolume(_:)``) may come from any thread, so conforming types synchronise internally.
public protocol AudioSink: AnyObject, Sendable {
    /// `true` when the sink consumes audio at the pace it is heard (a sound server); `false` when
    /// it takes audio as fast as it comes (a file, the null sink).
    var isRealTime: Bool { get }

    /// Prepares for PCM in `format`, replacing any stream of another format. Output stays
    /// paused until ``start()``.
    func open(format: AudioFormat) throws(PlayerError)

    /// Queues `pcm` (whole frames), blocking while the sink is full.
    /// - Returns: the bytes queued: all of them, or fewer if ``interrupt()`` cut the wait short.
    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int

    /// Starts or resumes audible output of what is queued.
    func start()

    /// Pauses output, keeping what is queued.
    func pause()

    /// Drops everything queued and not yet heard (for seek and stop).
    func flush()

    /// Blocks until everything queued has been heard. Does not start a paused sink: the
    /// caller starts it, and a drain of a paused sink waits for ``start()``.
    /// - Returns: `false` if ``interrupt()`` cut the wait short.
    func drain() throws(PlayerError) -> Bool

    /// Releases the stream, and whatever ``prepare()`` began: the player closes a sink it
    /// prepared even when no open followed. The sink may be prepared and opened again.
    func close()

    /// Wakes a thread blocked in ``write(_:)`` or ``drain()``; sticky until ``clearInterrupt()``.
    func interrupt()

    /// Re-arms blocking after an ``interrupt()`` was handled.
    func clearInterrupt()

    /// Frames the sink can queue before output starts; a prebuffer larger than this could never
    /// fill, so output starts at this much at the latest.
    var queueCapacityFrames: Int { get }

    /// Frames queued but not yet heard: what stands between "written" and "heard", where
    /// "written" is what returned ``write(_:)`` calls took. A sink that already queued part
    /// of a write still blocked leaves that part out, so that written minus this is what was
    /// heard at any instant, not only between writes; it can then be below 0.
    var latencyFrames: Int { get }

    /// Sets the output volume, 0 (silent) to 1 (unchanged); values above 1 amplify.
    func setVolume(_ volume: Double)

    /// The player moved to another track by a command (not a gapless hand-off): what the
    /// replaced track queued is not wanted. Has a default that does nothing.
    func beginNewTrack()

    /// Times the output ran out of audio while playing, since the sink was made. Has a default
    /// of 0, for sinks that cannot run out.
    var underflowCount: Int { get }

    /// A play is about to need the sink: begins what ``open(format:)`` would otherwise begin,
    /// without waiting for it, so that it overlaps the input's connection and first bytes.
    /// Called on the decoder thread, before the first ``open(format:)`` of a play; failures
    /// are left for that open to report. Has a default that does nothing.
    func prepare()
}

extension AudioSink {
    /// Does nothing: the session's ``flush()`` suffices. A sound server sink starts a fresh
    /// stream instead, so that what the replaced track queued is gone at once.
    public func beginNewTrack() {}

    /// 0: a file or the null sink cannot run out.
    public var underflowCount: Int { 0 }

    /// Does nothing: a file or the null sink opens at once.
    public func prepare() {}
}
