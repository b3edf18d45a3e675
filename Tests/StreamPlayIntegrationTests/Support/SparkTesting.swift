import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// Sign-in steps and log readers for the Spark tests, against the Spark stand-in.
enum SparkTesting {
    static let userAgent = "StreamPlayTests-Spark/1.0"

    /// A client of the stand-in (its redirect URI, when given, for the plain OAuth 2 flow).
    /// Every answer of the API is checked against Spark's D envelope (SparkEnvelopeSchema).
    static func client(redirectURI: String? = nil, store: (any TokenStore)? = nil, userAgent: String? = userAgent,
                       configuration: ServiceConfiguration? = nil, logger: Logger = quietLogger()) throws -> SparkClient {
        let configuration = try configuration ?? ServiceStubs.configuration(.spark, redirectURI: redirectURI)
        return SparkClient(configuration: configuration,
                           http: SparkSchemaCheckingTransport(base: CurlHTTPClient(), apiURL: configuration.apiURL),
                           store: store, userAgent: userAgent, logger: logger)
    }

    /// An OpenID Connect sign-in driven as a browser would, as a fresh user, through a
    /// loopback listener. Returns the verified ID token and the request.
    static func signInOpenIDConnect(_ client: SparkClient, user: String = ServiceStubs.uniqueUser("oidc"))
        async throws -> (IDToken, SparkOpenIDConnectRequest) {
        let listener = try LoopbackRedirectListener()
        let request = try await client.makeOpenIDConnectRequest(redirectURI: listener.redirectURI)
        async let returned = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: [("stub_user", user)])
        return (try await client.completeOpenIDConnect(request, redirect: try await returned), request)
    }

    /// Auth-host (sparkplatform.com) entries of the stub log since `mark`, to `path` if given.
    static func authLog(after mark: Int, path: String? = nil) throws -> [[String: Any]] {
        try ServiceStubs.log(after: mark).filter {
            $0["service"] as? String == "spark" && $0["host"] as? String == "auth" && (path == nil || $0["path"] as? String == path)
        }
    }

    /// A console logger for warnings and errors only, so test output stays short.
    static func quietLogger() -> Logger {
        var logger = Logger(label: "streamplay.spark.test")
        logger.logLevel = .warning
        return logger
    }

    /// A Hybrid (or plain) OpenID sign-in driven as a browser would, as a fresh user. Returns
    /// the result and the URL Spark returned to.
    static func signIn(_ client: SparkClient, hybrid: Bool = true, user: String = ServiceStubs.uniqueUser("spark"),
                       attributes: [SparkOpenIDAttribute] = SparkOpenIDAttribute.defaults) async throws -> (SparkOpenIDResult, String) {
        let (request, returnURL) = try await openIDReturn(client, hybrid: hybrid, extra: [("stub_user", user)], attributes: attributes)
        return (try await client.completeOpenID(request, returnURL: returnURL), returnURL)
    }

    /// An OpenID request followed to its return on a loopback listener, not yet completed.
    static func openIDReturn(_ client: SparkClient, hybrid: Bool = true, extra: [(String, String)] = [],
                             attributes: [SparkOpenIDAttribute] = SparkOpenIDAttribute.defaults) async throws -> (SparkOpenIDRequest, String) {
        let listener = try LoopbackRedirectListener()
        let request = client.makeOpenIDRequest(hybrid: hybrid, attributes: attributes, returnTo: listener.redirectURI)
        async let returned = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: extra)
        return (request, try await returned)
    }

    /// Spark API-host entries of the stub log since `mark`.
    static func apiLog(after mark: Int) throws -> [[String: Any]] {
        try ServiceStubs.log(after: mark).filter { $0["service"] as? String == "spark" && $0["host"] as? String == "api" }
    }

    /// Grant requests since `mark`, of `grantType` if given.
    static func grants(after mark: Int, _ grantType: String? = nil) throws -> [[String: Any]] {
        try apiLog(after: mark).filter {
            $0["path"] as? String == "/v1/oauth2/grant" && (grantType == nil || $0["grant_type"] as? String == grantType)
        }
    }

    /// Requests to `path` since `mark`.
    static func requests(to path: String, after mark: Int) throws -> [[String: Any]] {
        try apiLog(after: mark).filter { $0["path"] as? String == path }
    }

    /// A raw refresh grant with `refreshToken`, as Spark documents it, for checking that a
    /// rotated-out token is dead.
    static func rawRefresh(_ refreshToken: String) async throws -> HTTPResponse {
        let configuration = try ServiceStubs.configuration(.spark)
        let body: JSON = ["client_id": .string(configuration.clientID), "client_secret": .string(configuration.clientSecret ?? ""),
                          "grant_type": "refresh_token", "refresh_token": .string(refreshToken),
                          "redirect_uri": "http://127.0.0.1:9/callback"]
        return try await CurlHTTPClient().send(HTTPRequest(method: .post, url: configuration.tokenURL,
                                                      headers: ["X-SparkApi-User-Agent": userAgent], body: .json(body.encoded())))
    }

    /// The value of `name` in a URL's query.
    static func queryValue(_ name: String, in url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    /// Runs `body` and returns the SparkError it threw (a test failure if none).
    static func error<T>(_ body: () async throws(SparkError) -> T) async -> SparkError? {
        do {
            _ = try await body()
            Issue.record("expected a SparkError, got success")
            return nil
        } catch {
            return error
        }
    }
}
