import FoundationEssentials
import StreamPlay
import StreamPlayServices

extension FakeSoundCloud {
    private static var api: String { "https://\(apiHost)" }
    private static let errorLink = "https://developers.soundcloud.com/docs/api/explorer/open-api"

    func installRoutes() {
        route(.post, host: Self.authHost, path: "/oauth/token") { fake, request in fake.tokenEndpoint(request) }
        route(.post, host: Self.authHost, path: "/sign-out") { fake, request in fake.signOut(request) }
        route(host: Self.apiHost, pathPrefix: "/") { fake, request in
            switch fake.checkToken(request) {
            case .refused(let response): return response
            case .granted(let grant): return fake.api(request, grant: grant)
            }
        }
        route(host: Self.cdnHost, pathPrefix: "/") { fake, request in fake.cdn(request) }
    }

    // MARK: Tokens

    private func tokenEndpoint(_ request: RecordedRequest) -> HTTPResponse {
        let fields = FakeOAuth.fields(of: request)
        guard let grantType = fields["grant_type"], ["authorization_code", "refresh_token", "client_credentials"].contains(grantType) else {
            return FakeOAuth.error("unsupported_grant_type", "grant_type missing or not supported", for: request)
        }
        let client = FakeOAuth.client(of: request, fields: fields)
        guard client.id == Self.clientID, client.secret == Self.clientSecret else {
            return FakeOAuth.error("invalid_client", "unknown client or wrong secret", status: 401, for: request)
        }
        let grant: FakeTokenAuthority.Grant
        do throws(FakeTokenAuthority.Refusal) {
            switch grantType {
            case "authorization_code":
                guard let code = fields["code"], fields["redirect_uri"] != nil, fields["code_verifier"] != nil else {
                    return FakeOAuth.error("invalid_request", "code, redirect_uri and code_verifier are required", for: request)
                }
                grant = try tokenAuthority.redeem(code: code, redirectURI: fields["redirect_uri"], verifier: fields["code_verifier"])
            case "refresh_token":
                guard let refresh = fields["refresh_token"] else {
                    return FakeOAuth.error("invalid_request", "refresh_token is required", for: request)
                }
                grant = try tokenAuthority.useRefreshToken(refresh, rotates: true)
            default:
                grant = FakeTokenAuthority.Grant(user: nil, scope: "")
            }
        } catch {
            return FakeOAuth.error(error.error, error.description, for: request)
        }
        // SoundCloud answers a refresh token to every grant, client credentials included.
        let issued = tokenAuthority.issue(grant, grantType: grantType, withRefreshToken: true)
        return FakeOAuth.token(access: issued.access, refresh: issued.refresh, expiresIn: Self.tokenLifetime,
                               tokenType: "bearer", scope: grant.scope, for: request)
    }

    private func signOut(_ request: RecordedRequest) -> HTTPResponse {
        guard let json = try? JSON(parsing: request.bodyBytes), let token = json["access_token"]?.string else {
            return FakeOAuth.error("invalid_request", "access_token is required", for: request)
        }
        tokenAuthority.revoke(accessToken: token)
        return .json([:], for: request)
    }

    // MARK: API

    private func checkToken(_ request: RecordedRequest) -> FakeOAuth.Authorization {
        guard request.authorizationScheme == "OAuth" else {
            let message = request.authorizationScheme == nil ? "" : "Authorization scheme must be OAuth (OAuth ACCESS_TOKEN)"
            return .refused(Self.error(401, message, for: request))
        }
        guard case .valid(let grant) = tokenAuthority.check(request.authorizationCredentials) else {
            return .refused(Self.error(401, "", for: request))
        }
        return .granted(grant)
    }

    private func api(_ request: RecordedRequest, grant: FakeTokenAuthority.Grant) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, segments.first, segments.count) {
        case (.get, "resolve", 1), (.head, "resolve", 1):
            return resolve(request)
        case (.get, "me", 1):
            // 401, the status the OpenAPI lists for /me: the endpoint needs a user's token.
            guard let user = grant.user else { return Self.error(401, "a user's token is required", for: request) }
            return .json(me(user), for: request)
        case (.get, "users", 2):
            guard let id = Self.id(segments[1], kind: "users"), id == 100002 || id == 100001 else {
                return Self.error(404, "", for: request)
            }
            return .json(id == 100002 ? user(id: id, name: Self.artist) : user(id: id, name: Self.defaultUser), for: request)
        case (.get, "tracks", 2), (.head, "tracks", 2):
            guard let track = track(segments[1]) else { return Self.error(404, "", for: request) }
            return .json(json(track), for: request)
        case (.get, "tracks", 3) where segments[2] == "streams":
            guard let track = track(segments[1]) else { return Self.error(404, "", for: request) }
            var object: [String: JSON] = [:]
            for name in track.renditions {
                // The encrypted renditions' keys have no `_url` suffix, as SoundCloud sends them.
                object[name.contains("encrypted") ? name : "\(name)_url"] = .string("\(Self.api)/tracks/\(track.urn)/streams/\(name)")
            }
            return .json(.object(object), for: request)
        case (.get, "tracks", 4) where segments[2] == "streams", (.head, "tracks", 4) where segments[2] == "streams":
            guard let track = track(segments[1]), track.renditions.contains(segments[3]) else {
                return Self.error(404, "", for: request)
            }
            let location = signedURL(track: track.id, rendition: segments[3])
            return .redirect(to: location, body: ["status": "302 - Found", "location": .string(location)], for: request)
        default:
            return Self.error(404, "", for: request)
        }
    }

    private func resolve(_ request: RecordedRequest) -> HTTPResponse {
        guard let link = request.queryValue("url"), let target = resolved(link) else {
            return Self.error(request.queryValue("url") == nil ? 400 : 404, "", for: request)
        }
        let location = "\(Self.api)/\(target)"
        return .redirect(to: location, body: ["status": "302 - Found", "location": .string(location)], for: request)
    }

    /// The API path of what `link` points to: `tracks/URN` or `users/URN`.
    private func resolved(_ link: String) -> String? {
        guard let parts = URLParts(link) else { return nil }
        let host = parts.host.hasPrefix("www.") || parts.host.hasPrefix("m.")
            ? String(parts.host.drop { $0 != "." }.dropFirst()) : parts.host
        let segments = parts.path.split(separator: "/").map(String.init)
        let tracks = self.tracks.values
        if host == "on.soundcloud.com", segments.count == 1 {
            let short = ["stubFull1": 1001, "stubAac1": 1002, "stubPreview1": 1003]
            return short[segments[0]].map { "tracks/soundcloud:tracks:\($0)" }
        }
        guard host == "soundcloud.com", segments.first == Self.artist else { return nil }
        if segments.count == 1 { return "users/soundcloud:users:100002" }
        guard segments.count == 2, let track = tracks.first(where: { $0.permalink == segments[1] }) else { return nil }
        return "tracks/\(track.urn)"
    }

    private func track(_ text: String) -> Track? {
        Self.id(text, kind: "tracks").flatMap { tracks[$0] }
    }

    /// The number in a URN of `kind` or a plain numeric id.
    private static func id(_ text: String, kind: String) -> Int? {
        if let urn = SoundCloudURN(text, kind: kind) { return Int(urn.id) }
        return nil
    }

    /// SoundCloud's error body: `{code, message, link, status, errors, error}`.
    static func error(_ status: Int, _ message: String, for request: RecordedRequest) -> HTTPResponse {
        let phrases = [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"]
        let body: JSON = ["code": FakeOAuth.number(status), "message": .string(message), "link": .string(errorLink),
                          "status": .string("\(status) - \(phrases[status] ?? "Error")"), "errors": [], "error": nil]
        return .json(body, status: status, for: request)
    }

    // MARK: CDN

    /// A media playlist of 4 s segments as long as the track (30 s for a snippet), with the
    /// track's `EXT-X-KEY`, if it has one.
    private func playlist(for track: Track?) -> String {
        let full = Double(track?.durationMilliseconds ?? 4000) / 1000
        var left = track?.servesSnippet == true ? min(full, 30) : full
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n"
        if let method = track?.playlistKeyMethod {
            text += "#EXT-X-KEY:METHOD=\(method),URI=\"skd://key\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n"
        }
        var index = 0
        while left > 0 {
            text += "#EXTINF:\(min(left, 4)),\nsegment\(index).mp3\n"
            left -= 4
            index += 1
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    private func cdn(_ request: RecordedRequest) -> HTTPResponse {
        let xml = ["Content-Type": "application/xml"] as HTTPHeaders
        if request.headers["Authorization"] != nil {
            return .text("<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>",
                         status: 400, headers: xml, for: request)
        }
        guard request.queryValue("Signature") != nil, let expires = request.queryValue("Expires").flatMap(Double.init) else {
            return .text("<Error><Code>MissingKey</Code></Error>", status: 403, headers: xml, for: request)
        }
        guard expires > Date().timeIntervalSince1970 else {
            return .text("<Error><Code>AccessDenied</Code><Message>Access denied</Message></Error>", status: 403,
                         headers: xml, for: request)
        }
        if request.path.hasSuffix(".m3u8") {
            let id = request.path.split(separator: "/").dropFirst().first.flatMap { Int($0) }
            return .text(playlist(for: id.flatMap(track)), headers: ["Content-Type": "application/vnd.apple.mpegurl"], for: request)
        }
        // An ID3v2 header with no frames: the start of an MP3 file, not audio to decode.
        let bytes: [UInt8] = [0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        return HTTPResponse(status: 200, headers: ["Content-Type": "audio/mpeg", "Accept-Ranges": "bytes"], body: bytes,
                            url: request.url)
    }
}
