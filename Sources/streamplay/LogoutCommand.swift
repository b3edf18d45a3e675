import ArgumentParser
import StreamPlayServices

/// `streamplay logout SERVICE`: ends the session and deletes the stored tokens.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget a service's tokens (soundcloud, spotify or spark).")

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @Flag(name: .shortAndLong, help: "Log what happens on stderr.")
    var verbose = false

    func run() async throws {
        LogSetup.bootstrap(verbose: verbose)
        do {
            let context = try ServiceContext(caFile: nil)
            let wasSignedIn = try context.store.load(account: service.rawValue) != nil
            try context.store.remove(account: service.rawValue)
            StandardStream.error(wasSignedIn ? "Signed out of \(service).\n" : "Not signed in to \(service).\n")
        } catch {
            StandardStream.error("streamplay: \(error)\n")
            throw ExitCode(1)
        }
    }
}
