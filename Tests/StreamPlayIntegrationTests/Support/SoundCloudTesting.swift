import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// SoundCloud clients against the stand-in (scripts/service-stubs.py), signed in as the tests
/// need them, and readers of what the stand-in saw.
enum SoundCloudTesting {
    /// A redirect URI that nothing listens on: the tests read the stub's Location instead.
    static let redirectURI = "https://streamplay.example/callback"

    /// A client of the stand-in, not signed in.
    static func client(redirectURI: String = redirectURI, logger: Logger = Logger(label: "test.soundcloud"),
                       retryPolicy: ServiceRetryPolicy = ServiceRetryPolicy(initialDelay: 0.2),
                       store: (any TokenStore)? = nil) throws -> SoundCloudClient {
        SoundCloudClient(configuration: try ServiceStubs.configuration(.soundcloud, redirectURI: redirectURI),
                         store: store, logger: logger, retryPolicy: retryPolicy)
    }

    /// A client signed in as `user` (a fresh user by default) through the authorization code
    /// flow, the browser step taken by ``ServiceStubs/browse(_:extra:deliver:)``.
    static func signedIn(as user: String = ServiceStubs.uniqueUser("sc"), logger: Logger = Logger(label: "test.soundcloud"),
                         retryPolicy: ServiceRetryPolicy = ServiceRetryPolicy(initialDelay: 0.2)) async throws -> SoundCloudClient {
        let client = try client(logger: logger, retryPolicy: retryPolicy)
        let request = await client.oauth.makeAuthorizationRequest()
        let location = try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
        try await client.oauth.completeAuthorization(request, redirect: location)
        return client
    }

    /// A client holding a client-credentials token (no user).
    static func appClient(retryPolicy: ServiceRetryPolicy = ServiceRetryPolicy(initialDelay: 0.2)) async throws -> SoundCloudClient {
        let client = try client(retryPolicy: retryPolicy)
        try await client.oauth.authenticateWithClientCredentials()
        return client
    }

    /// A synthetic track id (2000000...2999999) no other test uses, for path-matched failures.
    static func syntheticTrack() -> Int { Int.random(in: 2_000_000...2_999_999) }

    /// A synthetic track and its API path, whose next `count` requests the stand-in answers
    /// 429 with `Retry-After: 1`.
    static func rateLimitedTrack(count: Int = 1) async throws -> (id: Int, path: String) {
        let track = syntheticTrack()
        let path = "/tracks/soundcloud:tracks:\(track)"
        try await ServiceStubs.fail(.soundcloud, status: 429, count: count, path: path, retryAfter: 1)
        return (track, path)
    }

    /// The stand-in's upload records, oldest first.
    static func uploads() async throws -> [[String: Any]] {
        let response = try await CurlHTTPClient().send(HTTPRequest(url: "\(try ServiceStubs.controlURL())/_control/uploads"))
        try #require(response.status == 200)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
    }

    /// The upload record of the track titled `title`.
    static func upload(titled title: String) async throws -> [String: Any] {
        try #require(try await uploads().last { ($0["title"] as? String) == title }, "no upload titled \(title)")
    }

    /// A GET as a player makes it: no Authorization header unless given.
    static func fetch(_ url: String, headers: HTTPHeaders = ["Range": "bytes=0-1023"]) async throws -> HTTPResponse {
        try await CurlHTTPClient().send(HTTPRequest(url: url, headers: headers))
    }

    /// A file that the stand-in takes as audio (an ID3 header, then `size` bytes), for uploads.
    static func audioFile(size: Int = 256 * 1024) throws -> String {
        let path = TestEnvironment.temporaryPath("upload.mp3")
        var bytes: [UInt8] = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 0]
        bytes += (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The log entries of SoundCloud's `host` since `mark`.
    static func entries(after mark: Int, host: String) throws -> [[String: Any]] {
        try ServiceStubs.log(after: mark).filter { $0["service"] as? String == "soundcloud" && $0["host"] as? String == host }
    }

    /// The error `operation` threw, or nil when it succeeded; an error of another type is
    /// recorded as an issue (and nil returned).
    static func failure<T>(_ operation: () async throws -> T) async -> SoundCloudError? {
        do {
            _ = try await operation()
            return nil
        } catch let error as SoundCloudError {
            return error
        } catch {
            Issue.record("not a SoundCloudError: \(error)")
            return nil
        }
    }

    /// The query field `name` of `url`.
    static func queryField(_ name: String, of url: String) -> String? {
        FormEncoding.decode(url.split(separator: "?").last.map(String.init) ?? "").first { $0.0 == name }?.1
    }
}
