import StreamPlay
import StreamPlayServices
import Testing

/// `ServiceRetryPolicy.wait(after:response:method:resetIn:)`: a pure decision from an answer.
@Suite("ServiceRetryPolicy.wait")
struct ServiceRetryPolicyTests {
    static let policy = ServiceRetryPolicy(maximumRetries: 3, initialDelay: 0.5, maximumDelay: 30)

    static func response(_ status: Int, retryAfter: String? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if let retryAfter { headers.set("Retry-After", retryAfter) }
        return HTTPResponse(status: status, headers: headers, url: "https://api.example.org/x")
    }

    @Test("a 429's Retry-After is the wait, for every method")
    func retryAfterIsTheWait() {
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "7"), method: .get) == 7)
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "2"), method: .post) == 2)
        #expect(Self.policy.wait(after: 1, response: Self.response(503, retryAfter: " 4 "), method: .patch) == 4)
    }

    @Test("without a named wait the backoff doubles from initialDelay up to maximumDelay")
    func backoffDoubles() {
        let waits = (1...3).map { Self.policy.wait(after: $0, response: Self.response(500), method: .get) }
        #expect(waits == [0.5, 1, 2])
        let capped = ServiceRetryPolicy(maximumRetries: 10, initialDelay: 4, maximumDelay: 10)
        #expect(capped.wait(after: 3, response: Self.response(502), method: .delete) == 10)
    }

    @Test("Retry-After wins over the body's reset time; the reset time serves when it is alone")
    func retryAfterWinsOverResetTime() {
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "3"), method: .get, resetIn: 20) == 3)
        #expect(Self.policy.wait(after: 1, response: Self.response(429), method: .get, resetIn: 12) == 12)
        #expect(Self.policy.wait(after: 1, response: Self.response(429), method: .get, resetIn: -5) == 0)
    }

    @Test("a named wait beyond maximumDelay is not slept: the answer stands")
    func longWaitStands() {
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "31"), method: .get) == nil)
        #expect(Self.policy.wait(after: 1, response: Self.response(429), method: .get, resetIn: 86400) == nil)
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "30"), method: .get) == 30)
    }

    @Test("500, 502 and 504 are not retried for POST and PATCH; 429 and 503 are")
    func unsafeMethods() {
        for status in [500, 502, 504] {
            #expect(Self.policy.wait(after: 1, response: Self.response(status), method: .post) == nil)
            #expect(Self.policy.wait(after: 1, response: Self.response(status), method: .patch) == nil)
            #expect(Self.policy.wait(after: 1, response: Self.response(status), method: .put) == 0.5)
        }
        #expect(Self.policy.wait(after: 1, response: Self.response(503), method: .post) == 0.5)
    }

    @Test("success, client errors and 401 are never retried")
    func notRetryable() {
        for status in [200, 204, 302, 400, 401, 403, 404, 422] {
            #expect(Self.policy.wait(after: 1, response: Self.response(status, retryAfter: "1"), method: .get) == nil)
        }
    }

    @Test("after maximumRetries retries the answer stands; .never never retries")
    func outOfRetries() {
        #expect(Self.policy.wait(after: 3, response: Self.response(429, retryAfter: "1"), method: .get) == 1)
        #expect(Self.policy.wait(after: 4, response: Self.response(429, retryAfter: "1"), method: .get) == nil)
        #expect(ServiceRetryPolicy.never.wait(after: 1, response: Self.response(503), method: .get) == nil)
    }

    @Test("a Retry-After that is not delta-seconds is ignored for the backoff")
    func httpDateRetryAfter() {
        let response = Self.response(429, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(Self.policy.wait(after: 2, response: response, method: .get) == 1)
        #expect(Self.policy.wait(after: 1, response: Self.response(429, retryAfter: "-3"), method: .get) == 0.5)
    }
}
