import Foundation
import StreamPlay
import Synchronization
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// Uploads (progress, machine tags, sharing to connections or by e-mail, validation) and the
    /// connections a track can be posted to.
    @Suite("SoundCloud uploads and connections")
    struct UploadsAndConnections {
        @Test("upload with progress: title, machine tags, posts to chosen connections, e-mails for private tracks")
        func uploadAndShare() async throws {
            let client = try await SoundCloudTesting.signedIn()
            let connections = try await client.connections()
            let twitter = try #require(connections.first { $0.service == .twitter })
            let foursquare = try #require(connections.first { $0.service == .foursquare })
            let file = try SoundCloudTesting.audioFile()
            defer { try? FileManager.default.removeItem(atPath: file) }
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            let title = "Take \(UUID().uuidString.prefix(6))"
            var upload = SoundCloudUpload(asset: .file(path: file, filename: "take.mp3"), title: title)
            upload.tags = [.plain("live"), .plain("hip hop"), .foursquareVenue("4b8c2c1cf964a520"),
                           .machine(namespace: "streamplay", key: "take", value: "first try")]
                + SoundCloudTag.geo(latitude: 52.52, longitude: 13.405)
            upload.sharingTargets = .connections([twitter.id, foursquare.id])
            upload.description = "A test upload"
            upload.genre = "Test"
            upload.trackType = "recording"
            upload.license = "cc-by"
            upload.downloadable = true
            let progress = Mutex<[Int64]>([])
            let track = try await client.upload(upload) { sent, total in progress.withEngineLock { $0 += [sent, total] } }
            #expect(track.title == title && track.state == "processing" && track.sharing == "public")
            let last = progress.withEngineLock { Array($0.suffix(2)) }
            #expect(last.count == 2 && last[0] == last[1] && last[1] >= Int64(size), "progress reached the whole body: \(last)")
            let record = try await SoundCloudTesting.upload(titled: title)
            #expect((record["errors"] as? [Any])?.isEmpty == true, "\(record["errors"] ?? "")")
            #expect(record["track_id"].map { "soundcloud:tracks:\($0)" } == track.urn && record["sharing"] as? String == "public")
            let fields = try #require(record["fields"] as? [String: Any])
            #expect(fields["track[title]"] as? String == title && fields["track[type]"] as? String == "recording")
            #expect(fields["track[license]"] as? String == "cc-by" && fields["track[downloadable]"] as? String == "true")
            let asset = try #require((record["files"] as? [String: Any])?["track[asset_data]"] as? [String: Any])
            #expect(asset["filename"] as? String == "take.mp3" && asset["size"] as? Int == size)
            #expect(Set(record["tags"] as? [String] ?? []) == ["live", "hip hop"])
            let machine = (record["machine_tags"] as? [[String: String]] ?? []).map { "\($0["namespace"]!):\($0["key"]!)=\($0["value"]!)" }
            #expect(Set(machine) == ["geo:lat=52.52", "geo:lon=13.405", "foursquare:venue=4b8c2c1cf964a520", "streamplay:take=first try"])
            let postTo = try #require(record["post_to"] as? [String: Any])
            #expect(postTo["mode"] as? String == "ids" && Set(postTo["ids"] as? [Int] ?? []) == [twitter.id, foursquare.id])
            #expect(try await client.track(track.urn).state == "finished")

            // Private, shared by e-mail.
            let privateTitle = "Private \(UUID().uuidString.prefix(6))"
            let emails = ["ana@example.com", "bo@example.org"]
            _ = try await client.upload(SoundCloudUpload(asset: .data(Array(try Data(contentsOf: URL(fileURLWithPath: file))), filename: "p.mp3"),
                                                         title: privateTitle, sharing: .private, sharedToEmails: emails))
            let privateRecord = try await SoundCloudTesting.upload(titled: privateTitle)
            #expect(privateRecord["sharing"] as? String == "private" && privateRecord["shared_to_emails"] as? [String] == emails)
            #expect((privateRecord["errors"] as? [Any])?.isEmpty == true, "\(privateRecord["errors"] ?? "")")

            // Public, posted nowhere; and public with the website's defaults.
            let quietTitle = "Quiet \(UUID().uuidString.prefix(6))"
            _ = try await client.upload(SoundCloudUpload(asset: .file(path: file), title: quietTitle, sharingTargets: .nobody))
            #expect((try await SoundCloudTesting.upload(titled: quietTitle)["post_to"] as? [String: Any])?["mode"] as? String == "none")
            let defaultTitle = "Default \(UUID().uuidString.prefix(6))"
            _ = try await client.upload(SoundCloudUpload(asset: .file(path: file), title: defaultTitle))
            let defaults = try #require(try await SoundCloudTesting.upload(titled: defaultTitle)["post_to"] as? [String: Any])
            #expect(defaults["mode"] as? String == "default")
            #expect(Set(defaults["services"] as? [String] ?? []) == ["twitter", "facebook_profile"])
        }

        @Test("upload validation: SoundCloud's 422 is typed with the fields; impossible sharing is refused locally")
        func uploadValidation() async throws {
            let client = try await SoundCloudTesting.signedIn()
            let file = try SoundCloudTesting.audioFile(size: 1024)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let error = await SoundCloudTesting.failure {
                try await client.upload(SoundCloudUpload(asset: .file(path: file), title: "  ", tags: [.latitude(200)]))
            }
            guard case .api(let body)? = error else {
                Issue.record("expected a 422, got \(String(describing: error))")
                return
            }
            #expect(body.status == 422 && body.code == 422)
            #expect(Set(body.errors.compactMap(\.field)).isSuperset(of: ["track[title]", "track[tag_list]"]), "\(body.errors)")
            #expect(error?.description.contains("track[title]") == true)
            let mark = try ServiceStubs.logMark()
            let publicWithEmails = SoundCloudUpload(asset: .file(path: file), title: "x", sharedToEmails: ["a@example.com"])
            guard case .invalidRequest? = await SoundCloudTesting.failure({ try await client.upload(publicWithEmails) }) else {
                Issue.record("e-mails on a public track were sent")
                return
            }
            let privateToConnections = SoundCloudUpload(asset: .file(path: file), title: "x", sharing: .private, sharingTargets: .connections([1]))
            guard case .invalidRequest? = await SoundCloudTesting.failure({ try await client.upload(privateToConnections) }) else {
                Issue.record("connections on a private track were sent")
                return
            }
            #expect(try ServiceStubs.logMark() == mark)
        }

        @Test("connections: listed, created, and listed once the user opened the authorize URL")
        func connections() async throws {
            let client = try await SoundCloudTesting.signedIn()
            let initial = try await client.connections()
            #expect(initial.map(\.service) == [.twitter, .facebookProfile, .foursquare, .tumblr])
            #expect(initial.map(\.postPublish) == [true, true, false, false])
            let redirect = "https://streamplay.example/connected"
            let url = try await client.createConnection(service: .myspace, redirectURI: redirect, display: "popup")
            #expect(url.hasPrefix(try ServiceStubs.value(.soundcloud, "AUTH_URL").replacingOccurrences(of: "/authorize", with: "")))
            let opened = try await CurlHTTPClient().send(HTTPRequest(url: url))
            #expect(opened.status == 302)
            let location = try #require(opened.headers["Location"])
            #expect(location.hasPrefix(redirect + "?") && location.contains("service=myspace"))
            let id = try #require(SoundCloudTesting.queryField("connection_id", of: location))
            let after = try await client.connections()
            #expect(after.count == 5)
            #expect(after.first { $0.service == .myspace }.map { String($0.id) } == id)
        }
    }
}
