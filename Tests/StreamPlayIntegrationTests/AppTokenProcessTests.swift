import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

/// SoundCloud's and Spotify's app tokens (client credentials) cached between `streamplay`
/// processes, against the stand-ins: SoundCloud's are rationed (50 per 12 hours per app), so
/// processes started together ask for one, and later runs take it up or renew it.
@Suite("App tokens across processes", .serialized, .needsTestServers)
struct AppTokenProcessTests {
    typealias Home = ServiceCommandLineTests.Home

    /// The token requests of this test only: its runs ask for a scope no other test uses, and
    /// the stand-in logs the form (secrets redacted).
    static func tokenRequests(after mark: Int, marker: String, grant: String, path: String = "/oauth/token") throws -> [[String: Any]] {
        try ServiceStubs.log(after: mark).filter { entry in
            guard entry["path"] as? String == path, entry["grant_type"] as? String == grant else { return false }
            let form = entry["form"] as? [String: Any]
            return grant != "client_credentials" || form?["scope"] as? String == marker
        }
    }

    @Test("two streamplay processes started together ask for one app token; a later run reuses it, an expired one is refreshed; logout deletes it")
    func twoProcessesOneToken() async throws {
        let base = try Home(services: [.soundcloud])
        defer { base.remove() }
        let marker = "streamplay-test-\(UUID().uuidString.prefix(8).lowercased())"
        var environment = base.environment
        environment["STREAMPLAY_SOUNDCLOUD_SCOPES"] = marker
        let home = Home(copying: base, environment: environment)
        let link = "https://soundcloud.com/stub-artist/full-track"
        let mark = try ServiceStubs.logMark()

        async let first = ServiceCommandLineTests.run(["resolve", link], home: home)
        async let second = ServiceCommandLineTests.run(["resolve", link], home: home)
        let runs = try await [first, second]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        #expect(try Self.tokenRequests(after: mark, marker: marker, grant: "client_credentials").count == 1)

        let directory = "\(home.stateDirectory)/streamplay"
        let tokenFile = "\(directory)/soundcloud-app.token"
        for file in [tokenFile, "\(directory)/soundcloud-app.lock"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file)")
        }
        let store = EncryptedFileTokenStore(directory: directory)
        var cached = try #require(try store.load(account: "soundcloud-app"))
        let sealed = try String(decoding: Data(contentsOf: URL(fileURLWithPath: tokenFile)), as: UTF8.self)
        #expect(!sealed.contains(cached.accessToken), "encrypted at rest")
        #expect(try store.load(account: "soundcloud") == nil, "not taken for a user's session")

        // A third run takes the cached token up: no token request at all.
        let reuseMark = try ServiceStubs.logMark()
        let third = try await ServiceCommandLineTests.run(["resolve", link], home: home)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try ServiceStubs.log(after: reuseMark).filter { $0["path"] as? String == "/oauth/token" && $0["grant_type"] as? String == "client_credentials" && ($0["form"] as? [String: Any])?["scope"] as? String == marker }.isEmpty)

        // An expired cached token is renewed with the refresh grant, not a new grant.
        cached.expiresAt = Date(timeIntervalSinceNow: -60)
        try store.save(cached, account: "soundcloud-app")
        let refreshMark = try ServiceStubs.logMark()
        let fourth = try await ServiceCommandLineTests.run(["resolve", link], home: home)
        #expect(fourth.status == 0, "\(fourth.stderr)")
        #expect(try Self.tokenRequests(after: refreshMark, marker: marker, grant: "client_credentials").isEmpty)
        #expect(try Self.tokenRequests(after: refreshMark, marker: marker, grant: "refresh_token").count >= 1)
        let renewed = try #require(try store.load(account: "soundcloud-app"))
        #expect(renewed.accessToken != cached.accessToken && !renewed.isExpired())
        for run in runs + [third, fourth] {
            #expect(!run.stdout.contains(renewed.accessToken) && !run.stderr.contains(renewed.accessToken))
        }

        let logout = try await ServiceCommandLineTests.run(["logout", "soundcloud"], home: home)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tokenFile), "logout deletes the cached app token")
    }

    @Test("Spotify: two processes started together ask for one app token, a later run none; it is encrypted, user-only; logout deletes it")
    func spotifyTwoProcessesOneToken() async throws {
        let base = try Home(services: [.spotify])
        defer { base.remove() }
        let marker = "streamplay-test-\(UUID().uuidString.prefix(8).lowercased())"
        var environment = base.environment
        environment["STREAMPLAY_SPOTIFY_SCOPES"] = marker
        let home = Home(copying: base, environment: environment)
        let link = "https://open.spotify.com/track/0StrmPlyPreviewTrack01"
        let mark = try ServiceStubs.logMark()

        async let first = ServiceCommandLineTests.run(["resolve", link], home: home)
        async let second = ServiceCommandLineTests.run(["resolve", link], home: home)
        let runs = try await [first, second]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        #expect(try Self.tokenRequests(after: mark, marker: marker, grant: "client_credentials", path: "/api/token").count == 1)

        let directory = "\(home.stateDirectory)/streamplay"
        let tokenFile = "\(directory)/spotify-app.token"
        for file in [tokenFile, "\(directory)/spotify-app.lock"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file)")
        }
        let cached = try #require(try EncryptedFileTokenStore(directory: directory).load(account: "spotify-app"))
        let sealed = try String(decoding: Data(contentsOf: URL(fileURLWithPath: tokenFile)), as: UTF8.self)
        #expect(!sealed.contains(cached.accessToken), "encrypted at rest")

        let reuseMark = try ServiceStubs.logMark()
        let third = try await ServiceCommandLineTests.run(["resolve", link], home: home)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try Self.tokenRequests(after: reuseMark, marker: marker, grant: "client_credentials", path: "/api/token").isEmpty)
        for run in runs + [third] {
            #expect(!run.stdout.contains(cached.accessToken) && !run.stderr.contains(cached.accessToken))
        }

        let logout = try await ServiceCommandLineTests.run(["logout", "spotify"], home: home)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tokenFile), "logout deletes the cached app token")
    }
}
