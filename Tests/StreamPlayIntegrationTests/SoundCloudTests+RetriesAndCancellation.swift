import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// HTTP 429 retried after Retry-After or given up on with the typed rate-limit error, 5xx
    /// retried for reads only, and cancellation cutting a retry's wait short.
    @Suite("SoundCloud rate limits, retries and cancellation")
    struct RetriesAndCancellation {
        @Test("HTTP 429 is retried after Retry-After; the stand-in's log shows both tries")
        func rateLimitRetried() async throws {
            let client = try await SoundCloudTesting.appClient()
            let (track, path) = try await SoundCloudTesting.rateLimitedTrack()
            let mark = try ServiceStubs.logMark()
            let started = ContinuousClock.now
            #expect(try await client.track(String(track)).urn == "soundcloud:tracks:\(track)")
            #expect(ContinuousClock.now - started >= .milliseconds(950), "Retry-After: 1 was honoured")
            let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
            #expect(tries.map { $0["status"] as? Int } == [429, 200])
            #expect(tries.first?["injected"] as? Bool == true)
        }

        @Test("HTTP 429 that persists: typed rateLimited with the reset time, after the allowed tries")
        func rateLimitGivesUp() async throws {
            let client = try SoundCloudTesting.client(retryPolicy: ServiceRetryPolicy(maximumRetries: 1))
            try await client.oauth.authenticateWithClientCredentials()
            let (track, path) = try await SoundCloudTesting.rateLimitedTrack(count: 2)
            let mark = try ServiceStubs.logMark()
            guard case .rateLimited(let resetTime, let retryAfter)? = await SoundCloudTesting.failure({ try await client.track(String(track)) }) else {
                Issue.record("expected rateLimited")
                return
            }
            #expect(retryAfter == 1)
            let reset = try #require(resetTime, "reset_time of the 429 body")
            #expect(abs(reset.timeIntervalSinceNow) < 5)
            #expect(try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }.count == 2)
        }

        @Test("5xx is retried with backoff for reads; a POST's 500 is not repeated")
        func serverErrorsRetried() async throws {
            let client = try await SoundCloudTesting.signedIn()
            let track = SoundCloudTesting.syntheticTrack()
            let path = "/tracks/soundcloud:tracks:\(track)"
            try await ServiceStubs.fail(.soundcloud, status: 500, count: 1, path: path)
            try await ServiceStubs.fail(.soundcloud, status: 503, count: 1, path: path, retryAfter: 0)
            let mark = try ServiceStubs.logMark()
            #expect(try await client.track(String(track)).title == "Synthetic Track \(track)")
            let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
            #expect(tries.map { $0["status"] as? Int } == [500, 503, 200])
            try await ServiceStubs.fail(.soundcloud, status: 500, count: 1, path: "/me/connections", method: "POST")
            let postMark = try ServiceStubs.logMark()
            let error = await SoundCloudTesting.failure { try await client.createConnection(service: .tumblr, redirectURI: "https://streamplay.example/c") }
            guard case .api(let body)? = error else {
                Issue.record("expected the 500, got \(String(describing: error))")
                return
            }
            #expect(body.status == 500)
            #expect(try SoundCloudTesting.entries(after: postMark, host: "api").count == 1, "a POST is not retried on 500")
        }

        @Test("cancelling a request stops it, even while it waits to retry")
        func cancelRequest() async throws {
            let client = try await SoundCloudTesting.appClient()
            let (track, path) = try await SoundCloudTesting.rateLimitedTrack()
            let mark = try ServiceStubs.logMark()
            let started = ContinuousClock.now
            let request = client.request(.get, "/tracks/soundcloud:tracks:\(track)")
            try await Task.sleep(for: .milliseconds(300))
            request.cancel()
            #expect(request.isCancelled)
            guard case .cancelled? = await SoundCloudTesting.failure({ try await request.response }) else {
                Issue.record("a cancelled request answered")
                return
            }
            #expect(ContinuousClock.now - started < .milliseconds(900), "the 1 s wait was cut short")
            try await Task.sleep(for: .milliseconds(1000))
            let tries = try SoundCloudTesting.entries(after: mark, host: "api").filter { $0["path"] as? String == path }
            #expect(tries.count == 1, "no retry after the cancellation")
            // A task awaiting the answer and then cancelled cancels the request too.
            try await ServiceStubs.fail(.soundcloud, status: 429, count: 1, path: path, retryAfter: 1)
            let second = client.request(.get, "/tracks/soundcloud:tracks:\(track)")
            let waiter = Task { await SoundCloudTesting.failure { try await second.response } }
            try await Task.sleep(for: .milliseconds(200))
            waiter.cancel()
            #expect(await waiter.value == .cancelled)
        }
    }
}
