import ArgumentParser
import StreamPlayServices

/// `streamplay whoami SERVICE`: prints the signed-in account's user name.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Print the user name signed in to a service.")

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        try await options.run("") { context in
            guard try context.store.load(account: service.rawValue) != nil else {
                throw CommandFailure("not signed in to \(service): run `streamplay login \(service)`")
            }
            print(try await context.accountName(service))
        }
    }
}
