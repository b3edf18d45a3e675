import FoundationEssentials
import StreamPlay
import StreamPlayServices
import Synchronization

/// SoundCloud in memory: its token host (`secure.soundcloud.com`), API (`api.soundcloud.com`)
/// and CDN, as routes of an ``InMemoryHTTPTransport``, answering as the public OpenAPI
/// (soundcloud/api, `openapi/api.yaml`) and the project's stand-in servers do.
///
/// ```swift
/// let soundCloud = FakeSoundCloud()
/// let client = SoundCloudClient(configuration: soundCloud.configuration, http: soundCloud.transport)
/// try await client.oauth.authenticateWithClientCredentials()
/// let stream = try await client.stream(forTrack: "soundcloud:tracks:1001")
/// ```
///
/// - Tokens: `POST /oauth/token` with client credentials (HTTP Basic or body fields),
///   authorization code (PKCE S256 checked; get a code with
///   ``FakeOAuthService/authorize(_:user:)``), refresh
///   (single-use refresh tokens: rotation). `POST /sign-out` ends an access token.
/// - API (every call needs `Authorization: OAuth TOKEN`, else 401 with SoundCloud's error body;
///   an expired token, see ``FakeOAuthService/expireAccessTokens()``, is answered the same):
///   `GET /resolve?url=` (302 to the resource, body `{status, location}`), `GET /tracks/{urn}`
///   (URN or numeric id), `GET /tracks/{urn}/streams` (`hls_aac_160_url`, `hls_mp3_128_url`,
///   `http_mp3_128_url`, `preview_mp3_128_url`: API URLs), `GET /tracks/{urn}/streams/{name}`
///   (302 to a signed CDN URL), `GET /users/{urn}`, `GET /me` (a user's token only: 401 for
///   the app's own, as the OpenAPI lists).
/// - CDN (``cdnHost``): signed media URLs; a request that carries an Authorization header is
///   refused with 400, as S3/CloudFront refuse a second auth mechanism.
///
/// The fixtures are the stand-ins': track 1001 "Full Track" (every rendition), 1002 "AAC Only"
/// (`hls_aac_160_url` only), 1003 "Preview Only" (`access: preview`), by the user 100002
/// `stub-artist`; add more with ``add(_:)``.
public final class FakeSoundCloud: FakeOAuthService {
    /// A track the fake serves.
    public struct Track: Sendable, Equatable {
        /// The numeric id (the URN is `soundcloud:tracks:ID`).
        public var id: Int
        /// The path name of the track's page, under the artist's (`soundcloud.com/stub-artist/PERMALINK`).
        public var permalink: String
        /// The title.
        public var title: String
        /// `playable`, `preview` or `blocked`.
        public var access: String
        /// The renditions `/streams` lists, by name without `_url`: `http_mp3_128`,
        /// `hls_mp3_128`, `hls_aac_160`, `preview_mp3_128`.
        public var renditions: [String]
        /// The length in milliseconds.
        public var durationMilliseconds: Int
        /// Whether the track may be streamed at all.
        public var streamable: Bool
        /// Whether its full-track renditions serve only a 30 s snippet, as users have seen MP3
        /// renditions do since 2026-01: progressive ones from a `/preview/` path on the CDN, HLS
        /// ones as a playlist of 30 s.
        public var servesSnippet: Bool
        /// The `METHOD` of an `EXT-X-KEY` in its HLS playlists (`SAMPLE-AES` for DRM), if any.
        public var playlistKeyMethod: String?

        /// A track. Renditions may also be the encrypted ones, `ctr-encrypted-hls` and
        /// `cbc-encrypted-hls`.
        public init(id: Int, permalink: String, title: String, access: String = "playable",
                    renditions: [String] = FakeSoundCloud.allRenditions, durationMilliseconds: Int = 30000,
                    streamable: Bool = true, servesSnippet: Bool = false, playlistKeyMethod: String? = nil) {
            self.servesSnippet = servesSnippet
            self.playlistKeyMethod = playlistKeyMethod
            self.id = id
            self.permalink = permalink
            self.title = title
            self.access = access
            self.renditions = renditions
            self.durationMilliseconds = durationMilliseconds
            self.streamable = streamable
        }

        /// `soundcloud:tracks:ID`.
        public var urn: String { "soundcloud:tracks:\(id)" }
    }

    /// SoundCloud.
    public static let service = StreamingService.soundcloud
    /// The client id the fake accepts.
    public static let clientID = "sc-test-client"
    /// The client secret the fake accepts.
    public static let clientSecret = "sc-test-secret"
    /// The token and sign-in host.
    public static let authHost = "secure.soundcloud.com"
    /// The API host.
    public static let apiHost = "api.soundcloud.com"
    /// The CDN host signed stream URLs point to.
    public static let cdnHost = "cf-media.sndcdn.com"
    /// The user a sign-in is for unless told otherwise (id 100001).
    public static let defaultUser = "streamplay-tester"
    /// The artist of the fixture tracks (id 100002).
    public static let artist = "stub-artist"
    /// Every rendition name, in the order `/streams` lists them.
    public static let allRenditions = ["http_mp3_128", "hls_mp3_128", "hls_aac_160", "preview_mp3_128"]
    /// Seconds a signed CDN URL lives (SoundCloud's are reported to live about 5 minutes).
    public static let cdnURLLifetime = 300.0
    /// `expires_in` of the tokens (SoundCloud's access tokens live about an hour).
    public static let tokenLifetime = 3599

    /// The transport the fake answers on.
    public let transport: InMemoryHTTPTransport
    /// The fake's codes and tokens.
    public let tokenAuthority = FakeTokenAuthority(prefix: "sc")
    private let state: Mutex<State>

    struct State: Sendable {
        var tracks: [Int: Track]
        var includesNumericIDs = false
        var signatures = 0
    }

    /// The fake, its routes added to `transport`.
    public init(transport: InMemoryHTTPTransport = InMemoryHTTPTransport()) {
        self.transport = transport
        let fixtures = [
            Track(id: 1001, permalink: "full-track", title: "Full Track"),
            Track(id: 1002, permalink: "aac-only", title: "AAC Only", renditions: ["hls_aac_160"], durationMilliseconds: 24000),
            Track(id: 1003, permalink: "preview-only", title: "Preview Only", access: "preview", renditions: ["preview_mp3_128"]),
        ]
        state = Mutex(State(tracks: Dictionary(uniqueKeysWithValues: fixtures.map { ($0.id, $0) })))
        installRoutes()
    }

    /// Whether track and user objects carry the deprecated numeric `id` (and `user_id`) besides
    /// `urn`. False by default: the objects are the shape today's OpenAPI lists (urn only), as
    /// the stand-in servers answer by default; true answers the older shape with both.
    public var includesNumericIDs: Bool {
        get { state.withEngineLock { $0.includesNumericIDs } }
        set { state.withEngineLock { $0.includesNumericIDs = newValue } }
    }

    /// Adds (or replaces) a track, by the artist `stub-artist`.
    public func add(_ track: Track) {
        state.withEngineLock { $0.tracks[track.id] = track }
    }

    /// The track with `id`, if the fake has it.
    public func track(_ id: Int) -> Track? {
        state.withEngineLock { $0.tracks[id] }
    }

    /// Answers the next `count` API requests whose path starts with `pathPrefix` with 429,
    /// `Retry-After: retryAfter` and SoundCloud's rate-limit body (whose `reset_time` is as far
    /// off).
    public func rateLimitNext(_ count: Int = 1, retryAfter: Double, pathPrefix: String = "/") {
        let reset = Date(timeIntervalSinceNow: retryAfter.rounded(.up))
        let body: JSON = [
            "code": 429, "message": "", "link": "https://developers.soundcloud.com/docs/api/rate-limits#errors",
            "status": "429 - Too Many Requests", "error": nil,
            "errors": [["meta": ["rate_limit": ["group": "plays", "max_nr_of_requests": 15000, "time_window": "PT24H"],
                                 "remaining_requests": 0, "reset_time": .string(Self.timestamp(reset))]]],
        ]
        failAPIRequests(count, status: 429, retryAfter: retryAfter, pathPrefix: pathPrefix, body: body)
    }

    /// A fresh signed CDN URL for a rendition of a track (under `/preview/` for a snippet).
    func signedURL(track: Int, rendition: String) -> String {
        let snippet = self.track(track)?.servesSnippet == true && !rendition.hasPrefix("preview") && !rendition.contains("hls")
        let serial = state.withEngineLock { state -> Int in
            state.signatures += 1
            return state.signatures
        }
        let expires = Int(Date().timeIntervalSince1970 + Self.cdnURLLifetime)
        let file = rendition.contains("hls") ? "playlist.m3u8" : rendition.hasPrefix("preview") ? "preview.mp3" : "stream.mp3"
        let signature = String(serial * 7919 + track, radix: 16)
        return "https://\(Self.cdnHost)/media/\(track)/\(snippet ? "preview/" : "")\(rendition)/\(file)?Expires=\(expires)&Signature=\(signature)&Key-Pair-Id=APKASTUBKEY0001"
    }

    /// A time as SoundCloud writes it: `2026/01/31 12:00:00 +0000`.
    static func timestamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970)
        let days = seconds.quotientAndRemainder(dividingBy: 86400)
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days.quotient + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let time = days.remainder
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)/\(two(month))/\(two(day)) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) +0000"
    }

    /// The tracks, for the routes.
    var tracks: [Int: Track] { state.withEngineLock { $0.tracks } }
}
