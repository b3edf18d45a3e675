import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices
import StreamPlayTesting

/// `streamplay login`, `whoami`, `resolve`, `logout` and playing service links, run as a
/// person would, against the service stand-ins. Each test has its own state directory and
/// points the binary at the stand-ins through the STREAMPLAY_<SERVICE>_* variables.
@Suite("streamplay service commands", .serialized, .needsTestServers)
struct ServiceCommandLineTests {
    /// A private home for one test: config file path, state directory, service variables.
    struct Home {
        let stateDirectory: String
        let environment: [String: String]

        init(services: [StreamingService] = StreamingService.allCases) throws {
            let stateDirectory = TestEnvironment.temporaryPath("state")
            self.stateDirectory = stateDirectory
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = stateDirectory
            environment["STREAMPLAY_CONFIG"] = "\(stateDirectory)/no-config.json"
            environment["DISPLAY"] = nil
            environment["WAYLAND_DISPLAY"] = nil
            for service in StreamingService.allCases {
                for name in ["CLIENT_ID", "CLIENT_SECRET", "AUTH_URL", "TOKEN_URL", "API_URL"] {
                    environment["\(service.environmentPrefix)\(name)"] = nil
                }
            }
            for service in services {
                let configuration = try ServiceStubs.configuration(service)
                let prefix = service.environmentPrefix
                environment[prefix + "CLIENT_ID"] = configuration.clientID
                environment[prefix + "CLIENT_SECRET"] = configuration.clientSecret
                environment[prefix + "AUTH_URL"] = configuration.authorizationURL
                environment[prefix + "TOKEN_URL"] = configuration.tokenURL
                environment[prefix + "API_URL"] = configuration.apiURL
                if let openID = configuration.openIDURL { environment[prefix + "OPENID_URL"] = openID }
                if let discovery = configuration.discoveryURL { environment[prefix + "DISCOVERY_URL"] = discovery }
            }
            self.environment = environment
        }

        /// The same state directory with another environment.
        init(copying home: Home, environment: [String: String]) {
            stateDirectory = home.stateDirectory
            self.environment = environment
        }

        /// The token stored for `service`, decrypted with the store's own key.
        func storedToken(_ service: StreamingService) throws -> OAuth2Token? {
            try EncryptedFileTokenStore(directory: "\(stateDirectory)/streamplay").load(account: service.rawValue)
        }

        func remove() { try? FileManager.default.removeItem(atPath: stateDirectory) }
    }

    typealias Run = CommandLineTests.Run

    /// Runs streamplay in `home`.
    static func run(_ arguments: [String], home: Home,
                    onFirstLine: (@Sendable (String) async throws -> String?)? = nil) async throws -> Run {
        try await CommandLineTests.run(arguments, environment: home.environment, onFirstLine: onFirstLine)
    }

    /// `streamplay login SERVICE --no-browser`, the browser step done by following the printed
    /// URL as `user`. Returns the run and the URL printed.
    static func login(_ service: StreamingService, home: Home, user: String,
                      extra: [(String, String)] = [], arguments: [String] = []) async throws -> (Run, String) {
        let printed = LockedBox<String>("")
        let run = try await run(["login", service.rawValue, "--no-browser"] + arguments, home: home) { line in
            printed.set(line)
            try await ServiceStubs.browse(line, extra: [("stub_user", user)] + extra)
            return nil
        }
        return (run, printed.get())
    }

    @Test("login soundcloud --no-browser prints the authorization URL alone, stores the tokens encrypted 0600; whoami, resolve, play, logout")
    func soundCloudSession() async throws {
        let home = try Home(services: [.soundcloud])
        defer { home.remove() }
        let user = ServiceStubs.uniqueUser("cli")
        let (login, url) = try await Self.login(.soundcloud, home: home, user: user, arguments: ["--verbose"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(url.hasPrefix(try ServiceStubs.value(.soundcloud, "AUTH_URL") + "?"))
        let fields = Dictionary(FormEncoding.decode(url.split(separator: "?", maxSplits: 1)[1]), uniquingKeysWith: { $1 })
        #expect(fields["code_challenge_method"] == "S256")
        #expect(fields["state"]?.isEmpty == false)
        let redirect = try #require(fields["redirect_uri"])
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
        #expect(login.stdout == url + "\n", "nothing but the URL on stdout")

        let tokenFile = "\(home.stateDirectory)/streamplay/soundcloud.token"
        let mode = try #require(FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let token = try #require(try home.storedToken(.soundcloud))
        let stored = try String(decoding: Data(contentsOf: URL(fileURLWithPath: tokenFile)), as: UTF8.self)
        #expect(!stored.contains(token.accessToken), "the token file is encrypted")

        let whoami = try await Self.run(["whoami", "soundcloud"], home: home)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(whoami.stdout == "\(user)\n")

        let resolve = try await Self.run(["resolve", "https://soundcloud.com/stub-artist/full-track", "--verbose"], home: home)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        #expect(resolve.stdout.contains("format: hls") && resolve.stdout.contains("preview: no"))
        #expect(resolve.stdout.contains("title: Full Track"))
        #expect(resolve.stdout.contains("Signature=[redacted]"))
        #expect(resolve.stdout.contains(try ServiceStubs.value(.soundcloud, "CDN_URL")))

        // Plays through the resolver, the signed CDN URL fetched without the OAuth header.
        let mark = try ServiceStubs.logMark()
        let wav = TestEnvironment.temporaryPath("sc.wav")
        defer { try? FileManager.default.removeItem(atPath: wav) }
        // Without MP3 HLS, the progressive MP3 plays: the reference audio's file.
        try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_aac_160")
        try await ServiceStubs.fail(.soundcloud, status: 404, count: 1, path: "/tracks/soundcloud:tracks:1001/streams/hls_mp3_128")
        let play = try await Self.run(["--quiet", "--output", "wav:\(wav)", "--length", "3", "soundcloud:tracks:1001"], home: home)
        #expect(play.status == 0, "\(play.stderr)")
        let reference = try ReferenceAudio("cbr-44k-stereo.mp3")
        let output = try PCM.wavSamples(path: wav)
        #expect(SampleDifference.between(output.samples, Array(reference.samples[0..<(3 * 44100 * 2)])) == nil)
        let cdn = try ServiceStubs.log(after: mark).filter { $0["host"] as? String == "cdn" }
        #expect(!cdn.isEmpty && cdn.allSatisfy { $0["auth"] is NSNull }, "no Authorization header to the CDN")

        // No token or secret in anything printed, verbose included.
        for text in [login.stdout, login.stderr, whoami.stderr, resolve.stdout, resolve.stderr, play.stderr] {
            #expect(!text.contains(token.accessToken))
            #expect(!(token.refreshToken.map(text.contains) ?? false))
            #expect(!text.contains(try ServiceStubs.value(.soundcloud, "CLIENT_SECRET")))
        }

        let logoutMark = try ServiceStubs.logMark()
        let logout = try await Self.run(["logout", "soundcloud"], home: home)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
        // SoundCloud was told too: POST /sign-out on the token host, which ended the token.
        let signOut = try ServiceStubs.log(after: logoutMark).filter { $0["path"] as? String == "/sign-out" }
        #expect(signOut.count == 1 && signOut.first?["host"] as? String == "auth" && signOut.first?["status"] as? Int == 200)
        let after = try await Self.run(["whoami", "soundcloud"], home: home)
        #expect(after.status == 1)
        #expect(after.stderr.contains("not signed in"))
    }

    @Test("login spotify: whoami prints the display name; a Spotify link plays its preview")
    func spotifySession() async throws {
        let home = try Home(services: [.spotify])
        defer { home.remove() }
        let user = ServiceStubs.uniqueUser("cli")
        let (login, url) = try await Self.login(.spotify, home: home, user: user, arguments: ["--show-dialog"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(url.contains("show_dialog=true"))
        let whoami = try await Self.run(["whoami", "spotify"], home: home)
        #expect(whoami.stdout == "\(user)\n", "\(whoami.stderr)")

        let wav = TestEnvironment.temporaryPath("sp.wav")
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let play = try await Self.run(["--quiet", "--output", "wav:\(wav)", "spotify:track:0StrmPlyPreviewTrack01"], home: home)
        #expect(play.status == 0, "\(play.stderr)")
        let reference = try ReferenceAudio("cbr-44k-stereo-short.mp3")
        #expect(try SampleDifference.between(PCM.wavSamples(path: wav).samples, reference.samples) == nil)

        let none = try await Self.run(["resolve", "https://open.spotify.com/track/0StrmPlyNoPreviewTrk01"], home: home)
        #expect(none.status == 1)
        #expect(none.stderr.contains("no preview"), "\(none.stderr)")
    }

    @Test("login spark signs in with OpenID Connect (Hybrid with --spark-flow); whoami; the configured user agent; logout deletes the tokens at Spark")
    func sparkSession() async throws {
        let plain = try Home(services: [.spark])
        defer { plain.remove() }
        var environment = plain.environment
        environment["STREAMPLAY_SPARK_USER_AGENT"] = "CLITestAgent/7"
        let home = Home(copying: plain, environment: environment)
        let mark = try ServiceStubs.logMark()
        let (login, url) = try await Self.login(.spark, home: home, user: "streamplay-tester")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(url.contains("/openid/authorize?") && url.contains("scope=openid") && url.contains("nonce="), "\(url)")
        let stored = try #require(try home.storedToken(.spark))
        #expect(stored.openIDIdentity == "20000426173054342350000000" && stored.idToken != nil)
        let whoami = try await Self.run(["whoami", "spark"], home: home)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(whoami.stdout == "StreamPlay Tester\n")
        let api = try SparkTesting.apiLog(after: mark)
        #expect(!api.isEmpty && api.allSatisfy { ($0["headers"] as? [String: Any])?["X-SparkApi-User-Agent"] as? String == "CLITestAgent/7" })

        let logoutMark = try ServiceStubs.logMark()
        let logout = try await Self.run(["logout", "spark"], home: home)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try SparkTesting.authLog(after: logoutMark, path: "/openid/revoke").count == 2)
        #expect(try home.storedToken(.spark) == nil)

        // The seed's Hybrid flow on request; a failed deletion at Spark is reported, the tokens go anyway.
        let (hybrid, hybridURL) = try await Self.login(.spark, home: home, user: ServiceStubs.uniqueUser("cli"),
                                                       arguments: ["--spark-flow", "hybrid"])
        #expect(hybrid.status == 0, "\(hybrid.stderr)")
        #expect(hybridURL.contains("openid.spark.combined_flow=true"))
        #expect(try home.storedToken(.spark)?.openIDIdentity?.contains("/openid/id/") == true)
        try await ServiceStubs.fail(.spark, host: "auth", status: 400, count: 1, path: "/openid/revoke")
        let failed = try await Self.run(["logout", "spark"], home: home)
        #expect(failed.status == 1 && failed.stderr.contains("the local tokens were deleted anyway"), "\(failed.stderr)")
        #expect(try home.storedToken(.spark) == nil)
    }

    @Test("login --paste takes the redirect URL pasted on stdin (a browser on another machine)")
    func pastedRedirect() async throws {
        let home = try Home(services: [.soundcloud])
        defer { home.remove() }
        // The registered redirect URI: nothing listens there; the browser's address bar has it.
        var environment = home.environment
        environment["STREAMPLAY_SOUNDCLOUD_REDIRECT_URI"] = "http://127.0.0.1:9/callback"
        let pastedHome = Home(copying: home, environment: environment)
        let user = ServiceStubs.uniqueUser("paste")
        let printed = LockedBox<String>("")
        let login = try await Self.run(["login", "soundcloud", "--paste"], home: pastedHome) { url in
            printed.set(url)
            // The browser ends on the registered URI, which does not load; its address is pasted.
            let location = try await ServiceStubs.browse(url, extra: [("stub_user", user)], deliver: false)
            #expect(location.hasPrefix("http://127.0.0.1:9/callback?code="))
            return location + "\n"
        }
        #expect(printed.get().contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback"), "\(printed.get())")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("as \(user)"))
        #expect(try home.storedToken(.soundcloud) != nil)
    }

    @Test("Where there is a desktop, login opens the browser (xdg-open) on the authorization URL")
    func opensBrowser() async throws {
        let base = try Home(services: [.soundcloud])
        defer { base.remove() }
        // A stand-in xdg-open: records the URL, then follows it as a browser would.
        let bin = TestEnvironment.temporaryPath("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        let opened = "\(bin)/opened"
        let script = "#!/bin/sh\nprintf '%s\\n' \"$1\" > '\(opened)'\nexec curl -s -L -o /dev/null \"$1\"\n"
        try script.write(toFile: "\(bin)/xdg-open", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(bin)/xdg-open")
        var environment = base.environment
        environment["DISPLAY"] = ":99"
        environment["PATH"] = "\(bin):\(environment["PATH"] ?? "/usr/bin:/bin")"
        let home = Home(copying: base, environment: environment)
        let login = try await Self.run(["login", "soundcloud"], home: home)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Opened the browser"), "\(login.stderr)")
        let url = try String(contentsOfFile: opened, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(login.stdout == url + "\n", "the URL is on stdout too, alone")
        #expect(try home.storedToken(.soundcloud) != nil)
    }

    @Test("A registered loopback redirect URI fixes the listener's port and path")
    func registeredRedirect() async throws {
        let base = try Home(services: [.spotify])
        defer { base.remove() }
        let port = try LoopbackRedirectListener().port  // free a moment ago, closed again
        var environment = base.environment
        environment["STREAMPLAY_SPOTIFY_REDIRECT_URI"] = "http://127.0.0.1:\(port)/spotify/callback"
        let home = Home(copying: base, environment: environment)
        let user = ServiceStubs.uniqueUser("reg")
        let (login, url) = try await Self.login(.spotify, home: home, user: user)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2Fspotify%2Fcallback"), "\(url)")
        #expect(try home.storedToken(.spotify) != nil)
    }

    @Test("A denied sign-in exits 1 and stores nothing; an unconfigured service names its variable")
    func refusals() async throws {
        let home = try Home(services: [.soundcloud])
        defer { home.remove() }
        let (denied, _) = try await Self.login(.soundcloud, home: home, user: "cli-denied", extra: [("stub_deny", "access_denied")])
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("denied"), "\(denied.stderr)")
        #expect(try home.storedToken(.soundcloud) == nil)

        let spotify = try await Self.run(["login", "spotify", "--no-browser"], home: home)
        #expect(spotify.status == 1)
        #expect(spotify.stderr.contains("STREAMPLAY_SPOTIFY_CLIENT_ID"), "\(spotify.stderr)")
        let link = try await Self.run(["--quiet", "--output", "null", "spotify:track:0StrmPlyPreviewTrack01"], home: home)
        #expect(link.status == 1)
        #expect(link.stderr.contains("spotify"), "\(link.stderr)")
        let album = try await Self.run(["resolve", "spotify:album:0StrmPlyPreviewTrack01"], home: home)
        #expect(album.status == 1)
        #expect(album.stderr.contains("only spotify:track"), "\(album.stderr)")
    }

    @Test("Without a session, SoundCloud links resolve with client credentials")
    func clientCredentials() async throws {
        let home = try Home(services: [.soundcloud])
        defer { home.remove() }
        let mark = try ServiceStubs.logMark()
        let resolve = try await Self.run(["resolve", "--json", "https://on.soundcloud.com/stubFull1"], home: home)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(resolve.stdout.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Full Track")
        #expect(object["format"] as? String == "hls" && object["preview"] as? String == "no")
        #expect((object["expires_in"] as? Int).map { $0 > 0 } == true)
        let grants = try ServiceStubs.log(after: mark).compactMap { $0["grant_type"] as? String }
        #expect(grants == ["client_credentials"])
    }
}

/// A value set from one task and read from another.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value { lock.withLock { value } }
}
