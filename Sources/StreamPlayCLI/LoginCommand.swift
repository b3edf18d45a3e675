import ArgumentParser
import FoundationEssentials
import StreamPlay
import StreamPlayServices

/// `streamplay login SERVICE`: signs in with the service's authorization page (OAuth 2 with
/// PKCE for SoundCloud and Spotify; OpenID Connect for Spark, or its Hybrid and OpenID 2.0
/// flows with `--spark-flow`) and stores the tokens encrypted.
///
/// The redirect comes back to a one-shot listener on 127.0.0.1 (RFC 8252). The authorization
/// URL is the first line of stdout, alone, so that a script or a person on another machine can
/// open it; `--paste` takes the redirect URL pasted on stdin instead, for a browser elsewhere.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a service (soundcloud, spotify or spark) and store its tokens.")

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @Flag(help: "Do not open a browser: print the authorization URL and wait for the redirect.")
    var noBrowser = false

    @Flag(help: "Read the redirect URL from stdin (paste it from the browser's address bar).")
    var paste = false

    @Option(help: "Port of the loopback redirect listener (default: the configured redirect URI's, else any free one).")
    var port: Int?

    @Option(help: "Seconds to wait for the redirect.")
    var timeout: Double = 300

    @Flag(help: "Ask the user to approve again even if they did before (Spotify's show_dialog).")
    var showDialog = false

    @Option(help: "Spark's sign-in: openid-connect (default), hybrid (OpenID 2.0 with an OAuth 2 code) or openid (identity only, no API session).")
    var sparkFlow: SparkSignIn = .openIDConnect

    @OptionGroup var options: ServiceOptions

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        guard timeout > 0, timeout <= 86400 else { throw ValidationError("--timeout must be from 0 to 86400 seconds.") }
    }

    func run() async throws {
        try await options.run("login \(service)") { context in try await signIn(context) }
    }

    private func signIn(_ context: ServiceContext) async throws {
        let configured = try context.configuration(service)
        // A registered loopback redirect URI fixes the port and path; otherwise any free port.
        let registered = Self.loopbackAddress(of: configured.redirectURI)
        let listener = paste ? nil : try LoopbackRedirectListener(port: port ?? registered?.port ?? 0,
                                                                  path: registered?.path ?? "/callback")
        defer { listener?.close() }
        // The registered redirect URI when pasting; the listener's own otherwise.
        let redirectURI = listener?.redirectURI ?? configured.redirectURI ?? "http://127.0.0.1:\(port ?? 8080)/callback"
        let session: any LoginSession
        switch service {
        case .soundcloud: session = try await SoundCloudLogin(client: context.soundCloud(redirectURI: redirectURI))
        case .spotify: session = try await SpotifyLogin(client: context.spotify(redirectURI: redirectURI), showDialog: showDialog)
        case .spark:
            session = try await SparkLogin(client: context.spark(redirectURI: redirectURI), flow: sparkFlow, returnTo: redirectURI)
        }
        // The URL alone on the first line of stdout; everything else on stderr.
        StandardStream.output(session.authorizationURL + "\n")
        if !noBrowser, !paste, BrowserLauncher.isAvailable, BrowserLauncher.open(session.authorizationURL) {
            StandardStream.error("Opened the browser; waiting for the redirect to \(redirectURI)\n")
        } else if paste {
            StandardStream.error("Open the URL above, sign in, then paste the address the browser was sent to:\n")
        } else {
            StandardStream.error("Open the URL above in a browser; waiting for the redirect to \(redirectURI)\n")
        }
        let redirect: String
        if let listener {
            redirect = try await listener.waitForRedirect(timeout: timeout)
        } else {
            // stdin blocks: read it on a thread of its own, not on the cooperative pool.
            let pasted = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let started = EngineThread.detached(name: "sp-paste") {
                    continuation.resume(returning: readLine(strippingNewline: true))
                }
                if !started { continuation.resume(returning: nil) }
            }
            guard let line = pasted, !line.isEmpty else { throw CommandFailure("no redirect URL on stdin") }
            redirect = line
        }
        try await session.complete(redirect: redirect)
        if service == .spark, sparkFlow == .openID { return }  // no API session to name
        let name = (try? await context.accountName(service)).map { " as \($0)" } ?? ""
        StandardStream.error("Signed in to \(service)\(name).\n")
    }

    /// The port and path of a `http://127.0.0.1:PORT/PATH` redirect URI.
    static func loopbackAddress(of redirectURI: String?) -> (port: Int, path: String)? {
        let prefix = "http://127.0.0.1:"
        guard let redirectURI, redirectURI.hasPrefix(prefix) else { return nil }
        let rest = redirectURI.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let port = Int(digits.prefix(6)), (1...65535).contains(port) else { return nil }
        let path = rest.dropFirst(digits.count).prefix { $0 != "?" && $0 != "#" }
        return (port, path.isEmpty ? "/" : String(path))
    }
}
