import FoundationEssentials

/// What the user's Spotify Connect player is doing (`GET /v1/me/player`).
public struct SpotifyPlaybackState: Sendable, Equatable {
    /// Whether it is playing (false: paused, or stopped at the end of the list).
    public var isPlaying: Bool
    /// Where in the track it is, in milliseconds, when the answer was made (nil: nothing
    /// loaded).
    public var progressMilliseconds: Int?
    /// The track loaded, if it is a track (nil for an episode, an ad or nothing).
    public var track: SpotifyTrack?
    /// The device playing.
    public var device: SpotifyDevice?
    /// When Spotify made the answer.
    public var timestamp: Date?
    /// "off", "track" or "context".
    public var repeatState: String?
    /// Whether shuffle is on.
    public var shuffleState: Bool?
    /// "track", "episode", "ad" or "unknown".
    public var currentlyPlayingType: String?

    /// A state.
    public init(isPlaying: Bool, progressMilliseconds: Int? = nil, track: SpotifyTrack? = nil, device: SpotifyDevice? = nil,
                timestamp: Date? = nil, repeatState: String? = nil, shuffleState: Bool? = nil,
                currentlyPlayingType: String? = nil) {
        self.isPlaying = isPlaying
        self.progressMilliseconds = progressMilliseconds
        self.track = track
        self.device = device
        self.timestamp = timestamp
        self.repeatState = repeatState
        self.shuffleState = shuffleState
        self.currentlyPlayingType = currentlyPlayingType
    }

    /// The position in seconds (the SDK's `currentPlaybackPosition`), if something is loaded.
    public var position: Double? { progressMilliseconds.map { Double($0) / 1000 } }

    /// The loaded track's length in milliseconds (the SDK's `currentTrackDuration`).
    public var trackDurationMilliseconds: Int? { track?.durationMilliseconds }

    /// The playback state object of the Web API.
    init(json: JSON, status: Int) throws(SpotifyError) {
        guard let isPlaying = json["is_playing"]?.bool else {
            throw .invalidResponse(reason: "a playback state without is_playing", status: status)
        }
        // An episode or an ad is not a track: the state is still good without it.
        let item = json["item"].flatMap { json -> SpotifyTrack? in
            guard json["type"]?.string ?? "track" == "track" else { return nil }
            return try? SpotifyTrack(json: json, status: status)
        }
        let device: SpotifyDevice?
        if let object = json["device"], !object.isNull { device = try SpotifyDevice(json: object, status: status) } else { device = nil }
        self.init(isPlaying: isPlaying, progressMilliseconds: json["progress_ms"]?.int, track: item, device: device,
                  timestamp: json["timestamp"]?.double.map { Date(timeIntervalSince1970: $0 / 1000) },
                  repeatState: json["repeat_state"]?.string, shuffleState: json["shuffle_state"]?.bool,
                  currentlyPlayingType: json["currently_playing_type"]?.string)
    }
}
