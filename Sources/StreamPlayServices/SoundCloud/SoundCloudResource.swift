/// What a soundcloud.com link resolves to (``SoundCloudClient/resolve(_:)``).
public enum SoundCloudResource: Sendable, Equatable {
    /// A track.
    case track(SoundCloudTrack)
    /// A user's profile.
    case user(SoundCloudUser)
    /// A playlist or album.
    case playlist(SoundCloudPlaylist)
    /// Another kind: its `kind` and the object as sent.
    case other(kind: String, json: JSON)
}
