import ArgumentParser
import StreamPlayServices

/// `streamplay whoami SERVICE`: prints the signed-in account's user name.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Print the user name signed in to a service.")

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @Option(help: "Trust the certificate authorities in this PEM file instead of the system's.")
    var caFile: String?

    @Flag(name: .shortAndLong, help: "Log what happens on stderr.")
    var verbose = false

    func run() async throws {
        LogSetup.bootstrap(verbose: verbose)
        do {
            let context = try ServiceContext(caFile: caFile)
            guard try context.store.load(account: service.rawValue) != nil else {
                throw CommandFailure("not signed in to \(service): run `streamplay login \(service)`")
            }
            print(try await context.accountName(service))
        } catch {
            StandardStream.error("streamplay: \(error)\n")
            throw ExitCode(1)
        }
    }
}
