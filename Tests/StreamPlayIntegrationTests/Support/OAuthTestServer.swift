import Foundation
import Logging
import StreamPlay
import Synchronization
import Testing
@testable import StreamPlayServices

/// The Authlib OAuth 2 server that `scripts/test.sh` starts (scripts/oauth-server.py), and the
/// steps a browser would take against it.
enum OAuthTestServer {
    static func base() throws -> String { try TestEnvironment.value("STREAMPLAY_TEST_OAUTH") }
    static func clientSecret() throws -> String { try TestEnvironment.value("STREAMPLAY_TEST_OAUTH_CLIENT_SECRET") }
    static func password() throws -> String { try TestEnvironment.value("STREAMPLAY_TEST_OAUTH_PASSWORD") }
    static let confidentialClient = "streamplay-test"
    static let publicClient = "streamplay-public"

    /// A configuration for the confidential client (or the public one without a secret).
    static func configuration(public isPublic: Bool = false, redirectURI: String? = nil,
                              authentication: OAuth2Configuration.ClientAuthentication? = nil,
                              extra: [(String, String)] = []) throws -> OAuth2Configuration {
        let base = try base()
        return OAuth2Configuration(
            clientID: isPublic ? publicClient : confidentialClient,
            clientSecret: isPublic ? nil : try clientSecret(),
            authorizationURL: "\(base)/authorize", tokenURL: "\(base)/token", redirectURI: redirectURI,
            scopes: ["profile"], clientAuthentication: authentication, extraAuthorizationParameters: extra)
    }

    /// Changes the server's settings (expires_in, token_delay, deny) for tokens from now on.
    static func configure(_ fields: [(String, String)]) async throws {
        let response = try await CurlHTTPClient().send(HTTPRequest(method: .post, url: "\(try base())/admin/config", body: .form(fields)))
        try #require(response.status == 200, "admin/config: \(response.text)")
    }

    /// Back to the defaults every test starts from.
    static func reset() async throws {
        try await configure([("expires_in", "3600"), ("token_delay", "0"), ("deny", "0")])
    }

    /// The log entries written since `mark` (a count of lines taken before).
    static func log(after mark: Int = 0) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: try TestEnvironment.value("STREAMPLAY_TEST_OAUTH_LOG"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst(mark).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The number of log lines so far.
    static func logMark() throws -> Int { try log().count }
}

/// Collects every log message and metadata value, to check that no secret reaches a log.
struct CapturingLogHandler: LogHandler {
    static let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    // swiftlint:disable:next function_parameter_count
    func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
             source: String, file: String, function: String, line: UInt) {
        let all = metadata.merging(explicit ?? [:]) { $1 }
        let text = "\(level) \(message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))"
        Self.lines.withEngineLock { $0.append(text) }
    }

    /// A logger whose lines go to ``lines``.
    static func logger() -> Logger {
        Logger(label: "test") { _ in CapturingLogHandler() }
    }
}
