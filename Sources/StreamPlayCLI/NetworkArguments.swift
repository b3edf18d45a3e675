import StreamPlay
import StreamPlayServices

/// Whether a command line will probably make a request, judged from its words alone before
/// they are parsed: the command then begins loading libcurl at once (see `streamplayMain`), or
/// does not load it ahead when it plays only files (libcurl's share of a start and of memory is
/// in Benchmarks/README.md). A wrong guess costs only that head start: the first request loads
/// libcurl itself.
enum NetworkArguments {
    /// The subcommands that talk to a service.
    private static let serviceSubcommands: Set<String> = ["login", "logout", "whoami", "resolve"]
    /// ArgumentParser's names for help and the version, which answer without a request.
    private static let answeredWithoutRequest: Set<String> = ["-h", "--help", "-help", "--version"]

    /// Whether `arguments` (without the program's name) name anything on the network: an
    /// `http` or `https` URL, a service link (`soundcloud:tracks:N`, `spotify:track:ID`), or a
    /// service subcommand; not when they ask for help or the version. Each word is judged as
    /// the play command judges an input (``ServiceLink``, then `MediaLocation`), so an option's
    /// value counts only if it would be a link itself, which none of the command's values are
    /// (`wav:PATH`, numbers, modes, paths). A local playlist that lists URLs is not seen: its
    /// first request loads libcurl.
    static func mayRequest(_ arguments: [String]) -> Bool {
        let words = arguments.prefix { $0 != "--" }
        if words.contains(where: answeredWithoutRequest.contains) { return false }
        if let subcommand = words.first(where: { !$0.hasPrefix("-") }), serviceSubcommands.contains(subcommand) {
            return true
        }
        return arguments.contains { word in
            guard !word.hasPrefix("-"), let link = try? ServiceLink(parsing: word) else { return false }
            guard case .direct(let direct) = link else { return true }
            if case .remote? = try? MediaLocation(parsing: direct) { return true }
            return false
        }
    }
}
