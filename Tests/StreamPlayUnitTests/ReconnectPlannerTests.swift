import Testing
@testable import StreamPlay

@Suite("Reconnect planner")
struct ReconnectPlannerTests {
    static let error = PlayerError.connectionLost(url: "http://cdn.example/a.mp3", reason: "test")

    static func end(_ failure: TransferEnd.Failure?, offset: Int = 0, delivered: Int = 0, retryAfter: Double? = nil,
                    established: Bool = false) -> TransferEnd {
        TransferEnd(failure: failure, error: failure == nil ? nil : error, offset: offset, delivered: delivered,
                    retryAfter: retryAfter, inputEstablished: established)
    }

    static func planner(renew: Bool = false) -> ReconnectPlanner {
        ReconnectPlanner(policy: ReconnectPolicy(), canRenewURL: renew)
    }

    @Test("a completed transfer ends the input")
    func completed() {
        var planner = Self.planner()
        #expect(planner.plan(after: Self.end(nil, delivered: 100)) == .finished)
    }

    @Test("a first request that fails is reported at once, whatever the failure", arguments: [
        TransferEnd.Failure.connect, .broken, .stalled, .status(500), .status(404), .status(503), .permanent,
    ])
    func firstFailure(failure: TransferEnd.Failure) {
        var planner = Self.planner()
        #expect(planner.plan(after: Self.end(failure)) == .fail(Self.error))
    }

    @Test("a drop resumes at the first byte not received, with a doubling backoff, until the retries run out")
    func backoff() {
        var planner = Self.planner()
        let policy = ReconnectPolicy()
        var decisions: [ReconnectPlanner.Decision] = [planner.plan(after: Self.end(.broken, offset: 1000, delivered: 500))]
        for _ in 0..<policy.maximumRetries {
            decisions.append(planner.plan(after: Self.end(.connect, offset: 1500)))
        }
        let delays = decisions.compactMap { if case .retry(let offset, let delay) = $0, offset == 1500 { delay } else { nil } }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1.6])
        #expect(decisions.last == .fail(Self.error))
    }

    @Test("bytes delivered start the count again")
    func progressResets() {
        var planner = Self.planner()
        for _ in 0..<20 {
            #expect(planner.plan(after: Self.end(.broken, offset: 10, delivered: 1)) == .retry(offset: 11, delay: 0.1))
        }
    }

    @Test("the backoff never waits longer than the maximum, however many retries")
    func cappedDelay() {
        #expect(Backoff.delay(forRetry: 7, initialDelay: 0.1, maximumDelay: 3) == 3)
        #expect(Backoff.delay(forRetry: 10_000, initialDelay: 0.1, maximumDelay: 3) == 3)
        #expect(Backoff.delay(forRetry: 0, initialDelay: 0.1, maximumDelay: 3) == 0.1)
    }

    @Test("503 with a short Retry-After is tried again then, once before the input is under way")
    func retryAfter() {
        var planner = Self.planner()
        #expect(planner.plan(after: Self.end(.status(503), retryAfter: 1)) == .retry(offset: 0, delay: 1))
        #expect(planner.plan(after: Self.end(.status(503), retryAfter: 1)) == .fail(Self.error))
        var long = Self.planner()
        #expect(long.plan(after: Self.end(.status(429), retryAfter: 3600)) == .fail(Self.error))
        var midStream = Self.planner()
        for _ in 0..<3 {
            #expect(midStream.plan(after: Self.end(.status(503), offset: 99, retryAfter: 2)) == .retry(offset: 99, delay: 2))
        }
    }

    @Test("a resumed request answered 416 had everything: the end")
    func rangeNotSatisfiable() {
        var planner = Self.planner()
        #expect(planner.plan(after: Self.end(.status(416), offset: 5000)) == .finished)
        #expect(planner.plan(after: Self.end(.status(416))) == .fail(Self.error))
    }

    @Test("403 and 410 renew a signed URL: once before the input is under way, up to the retries after")
    func renewal() {
        var first = Self.planner(renew: true)
        #expect(first.plan(after: Self.end(.status(403))) == .renewURL(offset: 0))
        #expect(first.plan(after: Self.end(.status(403))) == .fail(Self.error))

        var midStream = Self.planner(renew: true)
        let renewals = (0..<6).map { _ in midStream.plan(after: Self.end(.status(410), offset: 700)) }
        #expect(renewals.filter { $0 == .renewURL(offset: 700) }.count == ReconnectPolicy().maximumRetries)
        #expect(renewals.last == .fail(Self.error))

        var noRefresher = Self.planner()
        #expect(noRefresher.plan(after: Self.end(.status(403), offset: 700)) == .fail(Self.error))
    }

    @Test("an HLS segment is part of a stream under way: transient failures are retried, 4xx are not")
    func segments() {
        var planner = Self.planner()
        #expect(planner.plan(after: Self.end(.connect, established: true)) == .retry(offset: 0, delay: 0.1))
        #expect(planner.plan(after: Self.end(.status(502), established: true)) == .retry(offset: 0, delay: 0.2))
        #expect(planner.plan(after: Self.end(.stalled, offset: 40, delivered: 2, established: true)) == .retry(offset: 42, delay: 0.1))
        #expect(planner.plan(after: Self.end(.status(429), established: true)) == .retry(offset: 0, delay: 0.2))
        #expect(planner.plan(after: Self.end(.status(404), established: true)) == .fail(Self.error))
        #expect(planner.plan(after: Self.end(.permanent, established: true)) == .fail(Self.error))
    }

    @Test("no retries at all when the policy allows none")
    func retriesOff() {
        var policy = ReconnectPolicy()
        policy.maximumRetries = 0
        var planner = ReconnectPlanner(policy: policy, canRenewURL: true)
        #expect(planner.plan(after: Self.end(.broken, offset: 10, delivered: 5)) == .fail(Self.error))
        #expect(planner.plan(after: Self.end(.status(410), offset: 10)) == .fail(Self.error))
    }
}
