import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

/// The SoundCloud, Spotify and Spark stand-ins that `scripts/test.sh` starts
/// (scripts/service-stubs.py; its docstring is the spec), and the steps a browser would take
/// against them.
enum ServiceStubs {
    /// `STREAMPLAY_STUB_<SERVICE>_<NAME>`.
    static func value(_ service: StreamingService, _ name: String) throws -> String {
        try TestEnvironment.value("STREAMPLAY_STUB_\(service.rawValue.uppercased())_\(name)")
    }

    /// The stand-in's configuration for `service` (its fixed test credentials and URLs).
    static func configuration(_ service: StreamingService, redirectURI: String? = nil,
                              scopes: [String]? = nil) throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration(
            service: service, clientID: try value(service, "CLIENT_ID"), clientSecret: try value(service, "CLIENT_SECRET"),
            authorizationURL: try value(service, "AUTH_URL"), tokenURL: try value(service, "TOKEN_URL"),
            apiURL: try value(service, "API_URL"), redirectURI: redirectURI,
            scopes: scopes ?? ServiceConfiguration.defaults(for: service).scopes)
        switch service {
        case .spark:
            configuration.openIDURL = try value(service, "OPENID_URL")
            configuration.discoveryURL = try value(service, "DISCOVERY_URL")
        case .spotify:
            configuration.tokenSwapURL = try value(service, "SWAP_URL")
            configuration.tokenRefreshURL = try value(service, "REFRESH_URL")
        case .soundcloud: break
        }
        return configuration
    }

    static func controlURL() throws -> String { try TestEnvironment.value("STREAMPLAY_STUB_CONTROL_URL") }

    /// POSTs `body` (a JSON object) to /_control/`path` and returns the decoded answer.
    @discardableResult
    static func control(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        let bytes = try JSONSerialization.data(withJSONObject: body)
        let response = try await CurlHTTPClient().send(HTTPRequest(
            method: .post, url: "\(try controlURL())/_control/\(path)", body: .json(Array(bytes))))
        try #require(response.status == 200, "_control/\(path): \(response.status) \(response.text)")
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// Queues `count` failures of `status` for requests to `service`'s `host` (whose path starts
    /// with `path`, if given). Without a status, the stand-in's default: 429, or for Spark's
    /// `sparkCode` 1550 (its rate limit) 503, for another code 401. `reason`: Spotify's error
    /// object's `reason` (`QUOTA_EXCEEDED`).
    static func fail(_ service: StreamingService, host: String = "api", status: Int? = nil, count: Int = 1,
                     path: String? = nil, method: String? = nil, retryAfter: Double? = nil,
                     sparkCode: Int? = nil, reason: String? = nil) async throws {
        var body: [String: Any] = ["service": service.rawValue, "host": host, "count": count]
        if let status { body["status"] = status }
        if let path { body["path"] = path }
        if let method { body["method"] = method }
        if let retryAfter { body["retry_after"] = retryAfter }
        if let sparkCode { body["spark_code"] = sparkCode }
        if let reason { body["reason"] = reason }
        try await control("fail", body)
    }

    /// Expires `service`'s current tokens now (`kind`: access, refresh or all): only those of
    /// `user` when given, so that suites running at the same time keep theirs.
    /// - Returns: how many tokens changed.
    @discardableResult
    static func expireTokens(_ service: StreamingService, kind: String = "access", user: String? = nil) async throws -> Int {
        try await massTokenChange("expire-tokens", service, kind: kind, user: user)
    }

    /// Revokes `service`'s current tokens (`kind`: refresh, access or all): only those of
    /// `user` when given.
    /// - Returns: how many tokens changed.
    @discardableResult
    static func revokeTokens(_ service: StreamingService, kind: String = "refresh", user: String? = nil) async throws -> Int {
        try await massTokenChange("revoke-tokens", service, kind: kind, user: user)
    }

    private static func massTokenChange(_ path: String, _ service: StreamingService, kind: String,
                                        user: String?) async throws -> Int {
        var body: [String: Any] = ["service": service.rawValue, "kind": kind]
        if let user { body["user"] = user }
        return try await control(path, body)["changed"] as? Int ?? -1
    }

    /// Changes token lifetime (`expires_in`) or, for SoundCloud, `cdn_expiry` from now on.
    static func configure(_ service: StreamingService, _ settings: [String: Any]) async throws {
        var body = settings
        body["service"] = service.rawValue
        try await control("config", body)
    }

    /// The log's text once it has stopped growing: the stand-ins write a request's line when
    /// its response is out, so a client can hold the answer a moment before the line is there.
    private static func settledLogText() throws -> String {
        let path = try TestEnvironment.value("STREAMPLAY_STUB_LOG")
        var text = try String(contentsOfFile: path, encoding: .utf8)
        for _ in 0..<40 {
            usleep(50_000)
            let again = try String(contentsOfFile: path, encoding: .utf8)
            if again.utf8.count == text.utf8.count { break }
            text = again
        }
        return text
    }

    /// The request log since `mark` (a count of lines taken before), one dictionary a request.
    static func log(after mark: Int = 0) throws -> [[String: Any]] {
        let text = try settledLogText()
        return text.split(separator: "\n").dropFirst(mark).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The number of log lines so far.
    static func logMark() throws -> Int { try log().count }

    /// The raw log text since `mark`, to check that no secret is in it.
    static func logText(after mark: Int = 0) throws -> String {
        let text = try settledLogText()
        return text.split(separator: "\n").dropFirst(mark).joined(separator: "\n")
    }

    /// Follows an authorization URL as a browser would (the stubs approve at once), adding
    /// `extra` test parameters (stub_user, stub_deny, ...); a redirect to a loopback listener is
    /// delivered there unless `deliver` is false. Returns the Location the stub sent.
    @discardableResult
    static func browse(_ url: String, extra: [(String, String)] = [], deliver: Bool = true) async throws -> String {
        let full = extra.isEmpty ? url : url + (url.contains("?") ? "&" : "?") + FormEncoding.encode(extra)
        let client = CurlHTTPClient()
        let answer = try await client.send(HTTPRequest(url: full))
        try #require(answer.status == 302, "authorize answered \(answer.status): \(answer.text)")
        let location = try #require(answer.headers["Location"])
        if deliver, location.hasPrefix("http://127.0.0.1:") {
            _ = try await client.send(HTTPRequest(url: location))
        }
        return location
    }

    /// A user name no other test uses, so that per-user state starts fresh.
    static func uniqueUser(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
