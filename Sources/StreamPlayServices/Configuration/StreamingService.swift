/// The services whose links StreamPlay resolves.
public enum StreamingService: String, Sendable, CaseIterable, CustomStringConvertible {
    /// SoundCloud (api.soundcloud.com).
    case soundcloud
    /// Spotify (api.spotify.com): metadata, previews and Connect playback control.
    case spotify
    /// The Spark platform (sparkapi.com).
    case spark

    /// The name used in commands, environment variables and the config file.
    public var description: String { rawValue }

    /// The prefix of this service's environment variables (`STREAMPLAY_SOUNDCLOUD_`, ...).
    public var environmentPrefix: String { "STREAMPLAY_\(rawValue.uppercased())_" }
}
