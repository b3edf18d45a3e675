import ArgumentParser
import Dispatch
import StreamPlay

#if canImport(Glibc)
import Glibc
#endif

/// `streamplay`: plays URLs, files and service links; signs in to the services.
struct StreamPlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streamplay",
        abstract: "Play audio streams, files and SoundCloud/Spotify/Spark links; sign in to the services.",
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

/// The command's entry point, which the `streamplay` executable (a C front end that answers
/// `--version` alone) finds with `dlsym` after loading this library. It runs the command with
/// `argv[1...]` as an `@main` command would, and does not return: the process exits with the
/// command's status.
/// - Parameters:
///   - argc: the number of arguments, the program's name included.
///   - argv: the arguments, `argv[0]` being the program's name.
/// - Returns: never; the command exits the process.
@_cdecl("streamplay_main")
public func streamplayMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let arguments = (1..<max(Int(argc), 1)).map { String(cString: argv[$0]!) }
    // When the arguments name something on the network, libcurl loads on a thread of its own
    // while they are parsed and the play is set up, instead of before the first request (see
    // CurlRequest.beginLoading). A play of files, --help or --version does not load it ahead,
    // nor does the Player (see NetworkArguments).
    if NetworkArguments.mayRequest(arguments) {
        CurlRequest.beginLoading()
    } else {
        CurlRequest.declineLoadingAhead()
    }
    // As an async `@main` does: the command runs in a task, the main queue is drained, and the
    // process exits when the command is done. Every exit, an error's included, goes through
    // ProcessExit, so that a signal's claimed status is the one the process ends with.
    Task { @MainActor in
        do {
            var command = try StreamPlayCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            ProcessExit.exit(0)
        } catch {
            let status = StreamPlayCommand.exitCode(for: error)
            let message = StreamPlayCommand.fullMessage(for: error)
            if !message.isEmpty {
                if status.isSuccess { print(message) } else { StandardStream.error(message + "\n") }
            }
            ProcessExit.exit(status.rawValue)
        }
    }
    dispatchMain()
}
