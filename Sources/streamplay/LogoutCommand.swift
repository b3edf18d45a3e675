import ArgumentParser
import StreamPlayServices

/// `streamplay logout SERVICE`: ends the session and deletes the stored tokens.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget a service's tokens (soundcloud, spotify or spark).")

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        try await options.run("logout \(service)") { context in
            // Whether a session was there; an unreadable one is removed all the same.
            let wasSignedIn = (try? context.store.load(account: service.rawValue)) != nil
            try context.store.remove(account: service.rawValue)
            StandardStream.error(wasSignedIn ? "Signed out of \(service).\n" : "Not signed in to \(service).\n")
        }
    }
}
