import ArgumentParser

/// The options every service command takes.
struct ServiceOptions: ParsableArguments {
    @Option(help: "Trust the certificate authorities in this PEM file instead of the system's.")
    var caFile: String?

    @Flag(name: .shortAndLong, help: "Log what happens on stderr (never a token or a secret).")
    var verbose = false

    /// Sets up logging, then runs `body`; a failure is one line on stderr and exit status 1.
    func run(_ what: String, _ body: (ServiceContext) async throws -> Void) async throws {
        LogSetup.bootstrap(verbose: verbose)
        do {
            try await body(try ServiceContext(caFile: caFile))
        } catch {
            StandardStream.error("streamplay: \(what)\(what.isEmpty ? "" : ": ")\(error)\n")
            throw ExitCode(1)
        }
    }
}
