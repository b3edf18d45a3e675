/// Whether a command line will probably make a request, judged from its words alone before
/// they are parsed: the command then begins loading libcurl at once (see `streamplayMain`), or
/// never loads it when it plays only files. libcurl and its ~30 libraries are about 9 MiB of
/// the process and several milliseconds of its start; a guess that turns out wrong costs only
/// that head start, since the first request loads libcurl itself.
enum NetworkArguments {
    /// The subcommands that talk to a service.
    private static let serviceSubcommands: Set<String> = ["login", "logout", "whoami", "resolve"]

    /// Whether `arguments` (without the program's name) name anything on the network: a URL
    /// other than `file://`, a service link such as `soundcloud:tracks:1` or
    /// `spotify:track:ID`, or a service subcommand. A file's path, an option and an option's
    /// value (`wav:PATH`, `10`, `track`) do not. A local playlist that lists URLs is not seen:
    /// its first request loads libcurl.
    static func mayRequest(_ arguments: [String]) -> Bool {
        if let subcommand = arguments.first(where: { !$0.hasPrefix("-") }), serviceSubcommands.contains(subcommand) {
            return true
        }
        return arguments.contains { argument in
            if argument.hasPrefix("-") { return false }
            let scheme = argument.prefix { $0.isLetter || $0.isNumber || "+.-".contains($0) }
            if !scheme.isEmpty, argument.dropFirst(scheme.count).hasPrefix("://") {
                return scheme.lowercased() != "file"
            }
            // A service link: SERVICE:KIND:ID, whose first two parts are letters.
            let parts = argument.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0...1].allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isLetter) }
        }
    }
}
