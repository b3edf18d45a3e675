import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

// The Spark client's retries, logging, redaction and origin checks (a file of its own: the suite is long).

extension SparkTests {
    // MARK: Retries, logging, redaction

    @Test("the rate limit (1550 with 503) and 503 retried honouring Retry-After; 500 only when the call may be repeated; limits")
    func retries() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        #expect(await client.retryPolicy == ServiceRetryPolicy())
        let mark = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, path: "/v1/my/account", sparkCode: 1550)
        try await ServiceStubs.fail(.spark, status: 503, path: "/v1/my/account")
        let start = ContinuousClock.now
        _ = try await client.account()
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(1900), "two Retry-After: 1 waits, took \(elapsed)")
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark).map { $0["status"] as? Int } == [503, 503, 200])
        // A 500 to a GET is retried after a backoff; to a POST it is not: Spark may have acted.
        await client.setRetryPolicy(ServiceRetryPolicy(maximumRetries: 2, initialDelay: 0.05, maximumDelay: 5))
        let mark2 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 500, path: "/v1/my/account")
        _ = try await client.account()
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark2).map { $0["status"] as? Int } == [500, 200])
        let mark3 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 500, path: "/v1/contacts", method: "POST")
        let email = "\(ServiceStubs.uniqueUser("retry"))@example.com"
        let postError = await SparkTesting.error { () async throws(SparkError) in
            try await client.post("/contacts", body: ["DisplayName": "Not Twice", "PrimaryEmail": .string(email)])
        }
        #expect(postError == .api(code: 1026, message: "An unexpected problem was encountered with the requested data.", status: 500))
        #expect(try SparkTesting.requests(to: "/v1/contacts", after: mark3).count == 1, "a POST is not repeated after a 500")
        // Out of attempts: the last answer is the error.
        let mark4 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 503, count: 3, path: "/v1/my/account", retryAfter: 0)
        let error = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(error == .api(code: 1510, message: "The API is temporarily unavailable.", status: 503))
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark4).count == 3, "the first try and two retries")
        // A Retry-After beyond the policy's longest wait is not slept: the error comes at once.
        await client.setRetryPolicy(ServiceRetryPolicy(maximumDelay: 0.5))
        let mark5 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, path: "/v1/my/account", retryAfter: 1, sparkCode: 1550)
        let start5 = ContinuousClock.now
        let limited = await SparkTesting.error { () async throws(SparkError) in try await client.account() }
        #expect(ContinuousClock.now - start5 < .milliseconds(900), "no 1 s wait under a 0.5 s limit")
        #expect(limited == .api(code: 1550, message: "Over rate limit", status: 503) && limited?.isRateLimited == true)
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark5).count == 1)
        // Never: one try.
        await client.setRetryPolicy(.never)
        let mark6 = try ServiceStubs.logMark()
        try await ServiceStubs.fail(.spark, status: 503, path: "/v1/my/account", retryAfter: 0)
        #expect(await SparkTesting.error { () async throws(SparkError) in try await client.account() }?.code == 1510)
        #expect(try SparkTesting.requests(to: "/v1/my/account", after: mark6).count == 1)
    }

    @Test("log levels map to swift-log: none, error, warning, info, debug")
    func logLevels() async throws {
        #expect(SparkLogLevel.allCases.map(\.loggerLevel) == [.critical, .error, .warning, .info, .debug])
        #expect(SparkLogLevel.allCases.map { SparkLogLevel($0.loggerLevel) } == SparkLogLevel.allCases)
        let client = try SparkTesting.client(logger: CapturingLogHandler.logger())
        _ = try await SparkTesting.signIn(client)
        func lines(_ body: () async throws -> Void) async rethrows -> [String] {
            let mark = CapturingLogHandler.lines.withEngineLock { $0.count }
            try await body()
            return CapturingLogHandler.lines.withEngineLock { Array($0.dropFirst(mark)) }.filter { $0.contains("Spark") }
        }
        let missing = "/listings/00000000000000000000000000"
        await client.setLogLevel(.error)
        #expect(await client.logLevel == .error)
        #expect(await client.oauth.logLevel == .error, "the session's logger follows")
        #expect(try await lines { _ = try await client.account() }.isEmpty, "a success logs nothing at error level")
        let failed = await lines { _ = try? await client.get(missing) }
        #expect(failed.count == 1 && failed[0].hasPrefix("error Spark API call failed"), "\(failed)")
        await client.setLogLevel(.none)
        #expect(await lines { _ = try? await client.get(missing) }.isEmpty, "none logs nothing, errors included")
        let beforeRefresh = CapturingLogHandler.lines.withEngineLock { $0.count }
        try await client.refresh()
        #expect(CapturingLogHandler.lines.withEngineLock { $0.count } == beforeRefresh, "nor the session's grants")
        await client.setLogLevel(.warning)
        await client.setRetryPolicy(ServiceRetryPolicy(maximumRetries: 1))
        try await ServiceStubs.fail(.spark, status: 503, count: 2, path: "/v1/my/account", retryAfter: 0)
        let warned = await lines { _ = try? await client.account() }
        #expect(warned.count == 2 && warned[0].hasPrefix("warning Spark answered HTTP 503")
                && warned[1].hasPrefix("error Spark API call failed"), "a retry is below warning; giving up is not: \(warned)")
        await client.setLogLevel(.info)
        try await ServiceStubs.fail(.spark, path: "/v1/my/account", retryAfter: 0, sparkCode: 1550)
        let info = try await lines { _ = try await client.account() }
        #expect(info.count == 2 && info[0].hasPrefix("notice Spark answered HTTP 503")
                && info[1].hasPrefix("info Spark API call") && info[1].contains("/v1/my/account"), "\(info)")
        await client.setLogLevel(.debug)
        let debug = try await lines { _ = try await client.get("/listings", parameters: ["_pagination": "1"]) }
        #expect(debug.contains { $0.hasPrefix("debug Spark API answer") && $0.contains("pagination=1/1") }, "\(debug)")
    }

    @Test("no token, refresh token, code or secret in logs or errors")
    func redaction() async throws {
        let mark = CapturingLogHandler.lines.withEngineLock { $0.count }
        let client = try SparkTesting.client(logger: CapturingLogHandler.logger())
        let user = ServiceStubs.uniqueUser("spark-redact")
        let (_, returnURL) = try await SparkTesting.signIn(client, user: user)
        let code = try #require(SparkTesting.queryValue("openid.spark.code", in: returnURL))
        var secrets = [code, "spark-test-secret"]
        func collectTokens() async {
            if let token = await client.oauth.currentToken {
                secrets.append(token.accessToken)
                if let refresh = token.refreshToken { secrets.append(refresh) }
            }
        }
        await collectTokens()
        _ = try await client.account()
        try await ServiceStubs.fail(.spark, status: 401, path: "/v1/my/account", sparkCode: 1020)
        _ = try await client.account()
        await collectTokens()
        var errors: [String] = []
        // A used code, exchanged again, fails: its error must not show the code.
        let (request, used) = try await SparkTesting.openIDReturn(client, extra: [("stub_user", user)])
        _ = try await client.completeOpenID(request, returnURL: used)
        secrets.append(try #require(SparkTesting.queryValue("openid.spark.code", in: used)))
        await collectTokens()
        if let error = await SparkTesting.error({ () async throws(SparkError) in try await client.completeOpenID(request, returnURL: used) }) {
            errors.append(error.description)
        }
        #expect(try await ServiceStubs.revokeTokens(.spark, kind: "all", user: user) >= 2)
        if let error = await SparkTesting.error({ () async throws(SparkError) in try await client.refresh() }) {
            errors.append(error.description)
        }
        errors.append(String(describing: await client.oauth.currentToken))
        let logged = CapturingLogHandler.lines.withEngineLock { Array($0.dropFirst(mark)) }
        #expect(logged.contains { $0.contains("Spark session obtained") }, "the log was captured")
        #expect(errors.count >= 2)
        for secret in secrets where secret.count >= 8 {
            #expect(!logged.contains { $0.contains(secret) }, "a secret in the log")
            #expect(!errors.contains { $0.contains(secret) }, "a secret in an error")
        }
        #expect(!(try ServiceStubs.logText()).contains("spark-test-secret"))
    }

    // MARK: Origins and descriptions

    @Test("a full URL off the API's origin is refused before any request (the token goes to the API only)")
    func offOriginURLRefused() async throws {
        let client = try SparkTesting.client()
        _ = try await SparkTesting.signIn(client)
        let api = try ServiceStubs.value(.spark, "API_URL")
        var otherPort = try #require(URLComponents(string: api))
        otherPort.port = (otherPort.port ?? 80) == 65535 ? 1 : (otherPort.port ?? 80) + 1
        let elsewhere = [
            "https://evil.example/v1/my/account?token=leak-me",
            "HTTPS://EVIL.example/v1/my/account",
            try ServiceStubs.value(.soundcloud, "API_URL") + "/v1/my/account",
            try #require(otherPort.string) + "/my/account",
            api.replacingOccurrences(of: "://", with: "://someone@") + "/my/account",
            api.replacingOccurrences(of: "http://", with: "https://") + "/my/account",
        ]
        let mark = try ServiceStubs.logMark()
        for url in elsewhere {
            let error = await SparkTesting.error { () async throws(SparkError) in try await client.get(url) }
            guard case .invalidRequest(let reason)? = error else { Issue.record("\(url): \(String(describing: error))"); continue }
            #expect(reason.contains("not on the API's origin") && !reason.contains("leak-me"), "\(reason)")
        }
        #expect(try ServiceStubs.logMark() == mark, "no request left the client")
        // The API's own origin, as a full URL, is fine.
        #expect(try await client.get(api + "/my/account").count == 1)
    }

    @Test("an OpenID request's description, debug description and dump do not show its state")
    func openIDRequestDescription() throws {
        let client = try SparkTesting.client()
        let request = client.makeOpenIDRequest(returnTo: "http://127.0.0.1:9/callback")
        #expect(request.url.contains(request.state), "the URL carries the state")
        var dumped = ""
        dump(request, to: &dumped)
        for text in [String(describing: request), String(reflecting: request), dumped] {
            #expect(!text.contains(request.state), "\(text)")
            #expect(text.contains("Hybrid") || text.contains("true"), "\(text)")
        }
    }
}
