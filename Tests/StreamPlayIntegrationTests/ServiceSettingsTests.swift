import Foundation
import Testing
@testable import StreamPlayServices

@Suite("Service settings (config file and environment)")
struct ServiceSettingsTests {
    private func writeConfig(_ text: String, mode: Int = 0o600) throws -> String {
        let path = TestEnvironment.temporaryPath("config.json")
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test("Defaults are the services' public endpoints, with no client id")
    func defaults() throws {
        let settings = try ServiceSettings.load(environment: [:], configFile: "/nonexistent/streamplay.json")
        #expect(settings[.soundcloud].tokenURL == "https://secure.soundcloud.com/oauth/token")
        #expect(settings[.spotify].apiURL == "https://api.spotify.com/v1")
        #expect(settings[.spark].openIDURL == "https://sparkplatform.com/openid")
        #expect(throws: ServiceSettingsError.notConfigured(.spotify)) { try settings.requireConfigured(.spotify) }
    }

    @Test("The config file sets fields; the environment wins over it")
    func fileThenEnvironment() throws {
        let path = try writeConfig("""
            {"soundcloud": {"client_id": "file-id", "client_secret": "file-secret", "api_url": "http://127.0.0.1:9/",
                            "scopes": ["a", "b"]},
             "spotify": {"client_id": "sp-file", "swap_url": "http://127.0.0.1:9/swap"}}
            """)
        let settings = try ServiceSettings.load(environment: [
            "STREAMPLAY_SOUNDCLOUD_CLIENT_ID": "env-id",
            "STREAMPLAY_SOUNDCLOUD_TOKEN_URL": "http://127.0.0.1:9/token",
            "STREAMPLAY_SPARK_CLIENT_ID": "spark-env",
            "STREAMPLAY_SPARK_SCOPES": "x y",
        ], configFile: path)
        let soundCloud = try settings.requireConfigured(.soundcloud)
        #expect(soundCloud.clientID == "env-id")
        #expect(soundCloud.clientSecret == "file-secret")
        #expect(soundCloud.apiURL == "http://127.0.0.1:9")
        #expect(soundCloud.tokenURL == "http://127.0.0.1:9/token")
        #expect(soundCloud.authorizationURL == "https://secure.soundcloud.com/authorize")
        #expect(soundCloud.scopes == ["a", "b"])
        #expect(settings[.spotify].tokenSwapURL == "http://127.0.0.1:9/swap")
        #expect(settings[.spark].clientID == "spark-env")
        #expect(settings[.spark].scopes == ["x", "y"])
        // The description names the client but never the secret.
        #expect(!soundCloud.description.contains("file-secret"))
        #expect(soundCloud.description.contains("env-id"))
    }

    @Test("STREAMPLAY_CONFIG and XDG_CONFIG_HOME choose the file")
    func filePath() {
        #expect(ServiceSettings.defaultConfigFilePath(environment: ["STREAMPLAY_CONFIG": "/x/c.json", "XDG_CONFIG_HOME": "/y"]) == "/x/c.json")
        #expect(ServiceSettings.defaultConfigFilePath(environment: ["XDG_CONFIG_HOME": "/y", "HOME": "/h"]) == "/y/streamplay/config.json")
        #expect(ServiceSettings.defaultConfigFilePath(environment: ["HOME": "/h"]) == "/h/.config/streamplay/config.json")
    }

    @Test("A secret in a file others can read is refused; a typo'd key or a non-object is named")
    func badFiles() throws {
        let open = try writeConfig(#"{"spark": {"client_id": "a", "client_secret": "s"}}"#, mode: 0o644)
        #expect(throws: ServiceSettingsError.insecurePermissions(path: open, mode: 0o644)) {
            try ServiceSettings.load(environment: [:], configFile: open)
        }
        // Without a secret, a readable file is fine.
        let public_ = try writeConfig(#"{"spark": {"client_id": "a"}}"#, mode: 0o644)
        #expect(try ServiceSettings.load(environment: [:], configFile: public_)[.spark].clientID == "a")

        let typo = try writeConfig(#"{"soundcloud": {"clientid": "a"}}"#)
        do {
            _ = try ServiceSettings.load(environment: [:], configFile: typo)
            Issue.record("a typo'd key was accepted")
        } catch {
            #expect(error.description.contains("\"clientid\""))
        }
        let service = try writeConfig(#"{"deezer": {}}"#)
        #expect(throws: ServiceSettingsError.self) { try ServiceSettings.load(environment: [:], configFile: service) }
        let notJSON = try writeConfig("client_id = a")
        #expect(throws: ServiceSettingsError.invalid(path: notJSON, reason: "not JSON")) {
            try ServiceSettings.load(environment: [:], configFile: notJSON)
        }
        let wrongType = try writeConfig(#"{"spotify": {"scopes": 5}}"#)
        #expect(throws: ServiceSettingsError.self) { try ServiceSettings.load(environment: [:], configFile: wrongType) }
    }
}

@Suite("Service links")
struct ServiceLinkTests {
    @Test("Links are told apart by form", arguments: [
        ("https://soundcloud.com/stub-artist/full-track", ServiceLink.soundCloudPage("https://soundcloud.com/stub-artist/full-track")),
        ("https://on.soundcloud.com/stubFull1", .soundCloudPage("https://on.soundcloud.com/stubFull1")),
        ("http://m.soundcloud.com/a/b?x=1", .soundCloudPage("http://m.soundcloud.com/a/b?x=1")),
        ("soundcloud:tracks:1001", .soundCloudTrack(urn: "soundcloud:tracks:1001")),
        ("https://api.soundcloud.com/tracks/1001", .soundCloudTrack(urn: "soundcloud:tracks:1001")),
        ("https://api.soundcloud.com/tracks/soundcloud%3Atracks%3A7", .soundCloudTrack(urn: "soundcloud:tracks:7")),
        ("spotify:track:0StrmPlyPreviewTrack01", .spotifyTrack(id: "0StrmPlyPreviewTrack01")),
        ("https://open.spotify.com/track/0StrmPlyPreviewTrack01?si=abc", .spotifyTrack(id: "0StrmPlyPreviewTrack01")),
        ("https://open.spotify.com/intl-de/track/0StrmPlyPreviewTrack01", .spotifyTrack(id: "0StrmPlyPreviewTrack01")),
        ("http://127.0.0.1:8000/a.mp3", .direct("http://127.0.0.1:8000/a.mp3")),
        ("/tmp/a.mp3", .direct("/tmp/a.mp3")),
        ("  song.mp3 ", .direct("song.mp3")),
    ])
    func classify(link: String, expected: ServiceLink) throws {
        #expect(try ServiceLink(parsing: link) == expected)
    }

    @Test("Links that name nothing playable are refused with the reason", arguments: [
        "spotify:album:0StrmPlyPreviewTrack01", "spotify:track:short", "https://open.spotify.com/playlist/0StrmPlyPreviewTrack01",
        "soundcloud:users:5", "soundcloud:tracks:abc", "https://soundcloud.com/", "https://api.soundcloud.com/me",
        "deezer:track:1", "",
    ])
    func refuse(link: String) {
        #expect(throws: ResolverError.self) { try ServiceLink(parsing: link) }
    }

    @Test("A private SoundCloud link's secret token is not shown, in the description or an error")
    func privateLinks() throws {
        let link = try ServiceLink(parsing: "https://soundcloud.com/stub-artist/full-track/s-AbC123xyz?secret_token=s-AbC123xyz")
        #expect(link == .soundCloudPage("https://soundcloud.com/stub-artist/full-track/s-AbC123xyz?secret_token=s-AbC123xyz"))
        #expect(link.description == "https://soundcloud.com/stub-artist/full-track/s-[redacted]")
        #expect(try ServiceLink(parsing: "https://m.soundcloud.com/a/b/s-Q1w2E3/").description == "https://m.soundcloud.com/a/b/s-[redacted]/")
        #expect(ServiceLink.hidingSecretTokens(in: "https://soundcloud.com:443/a/s-X9?x=1#y") == "https://soundcloud.com:443/a/s-[redacted]?x=1#y")
        // Not a secret token: a slug with more dashes, or another host.
        #expect(ServiceLink.hidingSecretTokens(in: "https://soundcloud.com/s-club-7/reach") == "https://soundcloud.com/s-club-7/reach")
        #expect(ServiceLink.hidingSecretTokens(in: "https://example.com/a/s-AbC123") == "https://example.com/a/s-AbC123")
        #expect(ServiceLink.hidingSecretTokens(in: "https://notsoundcloud.com/a/s-AbC123") == "https://notsoundcloud.com/a/s-AbC123")
        do {
            _ = try ServiceLink(parsing: "https://soundcloud.com/?secret_token=s-AbC123xyz")
            Issue.record("a link without a path was accepted")
        } catch {
            #expect(!error.description.contains("AbC123xyz"), "\(error)")
        }
    }
}
