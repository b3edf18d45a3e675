import ArgumentParser
import StreamPlay

/// `streamplay`: plays URLs, files and service links; signs in to the services.
@main
struct StreamPlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streamplay",
        abstract: "Play MP3 streams, files and SoundCloud/Spotify links; sign in to the services.",
        discussion: "`streamplay INPUT...` plays (the play command is the default). Services are set up with "
            + "STREAMPLAY_<SERVICE>_CLIENT_ID, _CLIENT_SECRET, _AUTH_URL, _TOKEN_URL, _API_URL (and _REDIRECT_URI, "
            + "_SCOPES, _OPENID_URL, _SWAP_URL, _REFRESH_URL) or the same keys in "
            + "$XDG_CONFIG_HOME/streamplay/config.json; tokens are kept encrypted in $XDG_STATE_HOME/streamplay. "
            + "SoundCloud's connections and upload sharing (post_to, shared_to) are legacy features of its 2012 API, "
            + "kept in the library only; SoundCloud may refuse them.",
        version: StreamPlayVersion.current,
        subcommands: [PlayCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, ResolveCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}
