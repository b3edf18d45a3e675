import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// What `resolve` makes of full-track, user and short links, and tracks by URN or numeric id.
    @Suite("SoundCloud links, URNs and ids")
    struct Resolving {
        @Test("resolve: full-track links, user links and on.soundcloud.com short links")
        func resolveLinks() async throws {
            let client = try await SoundCloudTesting.appClient()
            let mark = try ServiceStubs.logMark()
            guard case .track(let track) = try await client.resolve("https://soundcloud.com/stub-artist/full-track") else {
                Issue.record("not a track")
                return
            }
            #expect(track.id == nil && track.title == "Full Track" && track.username == "stub-artist")
            #expect(track.urn == "soundcloud:tracks:1001" && track.durationMilliseconds == 30000 && track.access == "playable")
            #expect(track.permalinkURL == "https://soundcloud.com/stub-artist/full-track" && track.streamable)
            let entries = try SoundCloudTesting.entries(after: mark, host: "api")
            #expect(entries.map { $0["path"] as? String } == ["/resolve", "/tracks/soundcloud:tracks:1001"])
            #expect(entries.map { $0["status"] as? Int } == [302, 200])
            #expect(entries.allSatisfy { $0["auth"] as? String == "OAuth" }, "the redirect is followed with the header")
            guard case .user(let user) = try await client.resolve("https://soundcloud.com/stub-artist") else {
                Issue.record("not a user")
                return
            }
            #expect(user.id == nil && user.username == "stub-artist" && user.urn == "soundcloud:users:100002")
            guard case .track(let short) = try await client.resolve("https://on.soundcloud.com/stubAac1") else {
                Issue.record("the short link is not a track")
                return
            }
            #expect(short.urn == "soundcloud:tracks:1002" && short.title == "AAC Only")
            guard case .track(let byURN) = try await client.resolve("soundcloud:tracks:1003") else {
                Issue.record("the URN is not a track")
                return
            }
            #expect(byURN.isPreviewOnly)
            guard case .notFound? = await SoundCloudTesting.failure({ try await client.resolve("https://soundcloud.com/nobody-here/nothing") }) else {
                Issue.record("an unknown link resolved")
                return
            }
        }

        @Test("tracks by URN or numeric id are the same; malformed ids are refused before any request")
        func urnAndNumericIDs() async throws {
            #expect(SoundCloudURN("soundcloud:tracks:123") == SoundCloudURN(kind: "tracks", id: "123"))
            #expect(SoundCloudURN.track("123")?.description == "soundcloud:tracks:123")
            #expect(SoundCloudURN.track("soundcloud:users:5") == nil)
            #expect(SoundCloudURN("soundcloud:tracks:12a") == nil && SoundCloudURN("spotify:track:1") == nil)
            let client = try await SoundCloudTesting.appClient()
            let mark = try ServiceStubs.logMark()
            let numeric = try await client.track("1001")
            let byURN = try await client.track("soundcloud:tracks:1001")
            #expect(numeric == byURN)
            let paths = try SoundCloudTesting.entries(after: mark, host: "api").map { $0["path"] as? String }
            #expect(paths == ["/tracks/soundcloud:tracks:1001", "/tracks/soundcloud:tracks:1001"])
            #expect(try await client.user("soundcloud:users:100002").username == "stub-artist")
            #expect(try await client.user("100002").username == "stub-artist")
            let before = try ServiceStubs.logMark()
            for bad in ["../me", "1001/streams", "soundcloud:users:1", ""] {
                guard case .invalidRequest? = await SoundCloudTesting.failure({ try await client.track(bad) }) else {
                    Issue.record("\(bad) was accepted")
                    continue
                }
            }
            #expect(try ServiceStubs.logMark() == before)
        }
    }
}
