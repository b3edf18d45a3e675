import StreamPlay

/// What a client's command comes to for a player in a given state: the decisions of the MPRIS
/// specification (and of mpv's MPRIS plugin where it is silent), kept apart from the player so
/// that they are tested without one.
enum MPRISCommandPlan: Equatable, Sendable {
    /// Nothing happens (the specification asks some commands to be ignored).
    case ignore
    case resume
    case pause
    /// Plays the queue item at `index` from its start (Play after a stop or the end).
    case playItem(Int)
    case stop
    case next
    case previous
    /// Seeks to this many seconds into the track.
    case seek(Double)

    /// Play: resumes a pause, plays the queue again after a stop or the end.
    static func play(_ view: MPRISPlayerView) -> Self {
        switch view.state {
        case .paused: .resume
        case .idle, .ended, .failed: view.queueCount > 0 ? .playItem(min(view.currentIndex ?? 0, view.queueCount - 1)) : .ignore
        case .connecting, .buffering, .playing: .ignore
        }
    }

    /// Pause: only what plays pauses.
    static func pause(_ view: MPRISPlayerView) -> Self {
        switch view.state {
        case .connecting, .buffering, .playing: .pause
        default: .ignore
        }
    }

    /// PlayPause: a pause when playing, Play otherwise.
    static func playPause(_ view: MPRISPlayerView) -> Self {
        pause(view) == .pause ? .pause : play(view)
    }

    /// Seek by `offset` microseconds from `position` seconds: not before the start; past the
    /// end it acts as Next, as the specification says.
    static func seek(by offset: Int64, from position: Double, _ view: MPRISPlayerView) -> Self {
        let snapshot = MPRISSnapshot(view)
        guard snapshot.canSeek, let duration = view.duration else { return .ignore }
        let target = max(position + Double(offset) / 1_000_000, 0)
        if target > duration { return snapshot.canGoNext ? .next : .ignore }
        return .seek(target)
    }

    /// SetPosition: ignored unless `trackID` is the current track's and `position` (in
    /// microseconds) lies within it, as the specification says.
    static func setPosition(trackID: String, position: Int64, _ view: MPRISPlayerView) -> Self {
        let snapshot = MPRISSnapshot(view)
        guard snapshot.canSeek, trackID == snapshot.trackID, let duration = view.duration, position >= 0 else { return .ignore }
        let target = Double(position) / 1_000_000
        return target > duration ? .ignore : .seek(target)
    }

    /// The volume a client asked for, as the player takes it: negative values count as 0.
    static func volume(_ requested: Double) -> Double? {
        guard requested.isFinite else { return nil }
        return max(requested, 0)
    }

    /// Carries the plan out on `player`.
    func apply(to player: Player) {
        switch self {
        case .ignore: break
        case .resume: player.resume()
        case .pause: player.pause()
        case .playItem(let index): player.play(itemAt: index)
        case .stop: player.stop()
        case .next: player.next()
        case .previous: player.previous()
        case .seek(let seconds): player.seek(to: seconds)
        }
    }
}
