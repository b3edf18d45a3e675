/// Who may hear an upload (`track[sharing]`).
public enum SoundCloudSharing: String, Sendable, Equatable {
    /// Everyone; can be posted to the user's connections.
    case `public`
    /// Only the user and those it is shared with (by e-mail).
    case `private`
}
