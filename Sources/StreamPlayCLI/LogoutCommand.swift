import ArgumentParser
import StreamPlayServices

/// `streamplay logout SERVICE`: ends the session and deletes the stored tokens.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget a service's tokens (soundcloud, spotify or spark).",
        discussion: """
            For SoundCloud, the session is also ended at SoundCloud (POST /sign-out on its token host); \
            when that fails, the failure is reported (exit status 1) and the local tokens are deleted anyway. \
            SoundCloud's cached app token (client credentials) is deleted as well. For Spark, its tokens are \
            deleted at Spark (the revocation endpoint of its OpenID Connect discovery document), with the same \
            handling of a failure.
            """)

    @Argument(help: "soundcloud, spotify or spark.")
    var service: StreamingService

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        try await options.run("logout \(service)") { context in
            // Whether a session was there; an unreadable one is removed all the same.
            let wasSignedIn = (try? context.store.load(account: service.rawValue)) != nil
            var remoteFailure: String?
            if service == .soundcloud, wasSignedIn, let client = try? context.soundCloud() {
                do throws(SoundCloudError) {
                    try await client.signOut()
                } catch {
                    remoteFailure = "SoundCloud's sign-out failed (\(error))"
                }
            }
            if service == .spark, wasSignedIn, let client = try? context.spark() {
                do throws(SparkError) {
                    try await client.signOutEverywhere()
                } catch {
                    remoteFailure = error.description
                }
            }
            try context.store.remove(account: service.rawValue)
            if service != .spark {
                // The app's own cached token (client credentials) goes too; Spark has none.
                try context.store.remove(account: AppTokenCache.account(for: service.rawValue))
            }
            StandardStream.error(wasSignedIn ? "Signed out of \(service).\n" : "Not signed in to \(service).\n")
            if let remoteFailure {
                throw CommandFailure("\(remoteFailure); the local tokens were deleted anyway")
            }
        }
    }
}
