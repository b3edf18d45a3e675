/// Where a ``Player`` is in the life of a play.
public enum PlayerState: Sendable, Equatable, CustomStringConvertible {
    /// Nothing loaded (before the first play, and after ``Player/stop()``).
    case idle
    /// Waiting for the first bytes of the resource.
    case connecting
    /// Decoding ahead until enough audio is queued to start without a gap.
    case buffering
    /// Audio is being heard.
    case playing
    /// Paused by ``Player/pause()``; resumes where it stopped.
    case paused
    /// The track played to its end (or to the requested length).
    case ended
    /// The play failed; the error names the cause and the place.
    case failed(PlayerError)

    /// `true` for ``ended``, ``failed(_:)`` and ``idle``: no play is in progress.
    public var isFinal: Bool {
        switch self {
        case .idle, .ended, .failed: true
        default: false
        }
    }

    /// A short lower-case name, as in `--json` output.
    public var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .buffering: "buffering"
        case .playing: "playing"
        case .paused: "paused"
        case .ended: "ended"
        case .failed: "failed"
        }
    }

    /// The name, with the error for ``failed(_:)``.
    public var description: String {
        if case .failed(let error) = self { return "failed: \(error)" }
        return name
    }
}
