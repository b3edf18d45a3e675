/// A track's preview: a plain MP3 clip (about 30 seconds) that StreamPlay's Player can play.
///
/// This is all of a Spotify track that plays outside Spotify: full tracks are DRM-protected and
/// stream only through Spotify's own player (controlled with ``SpotifyClient``'s playback
/// methods). The URL is public: send no Authorization header with it.
public struct SpotifyPreview: Sendable, Equatable {
    /// The MP3's URL (a CDN URL that needs no token).
    public var url: String
    /// The track's title.
    public var title: String
    /// The track's id.
    public var trackID: String
    /// The artists' names.
    public var artistNames: [String]
    /// The full track's length in seconds, not the clip's (the clip is about 30 s; its exact
    /// length is known once decoded).
    public var trackDuration: Double

    /// A preview.
    public init(url: String, title: String, trackID: String, artistNames: [String] = [], trackDuration: Double) {
        self.url = url
        self.title = title
        self.trackID = trackID
        self.artistNames = artistNames
        self.trackDuration = trackDuration
    }
}
