import Logging
import StreamPlay

/// How the service clients retry answers that say "not now": HTTP 429 and 5xx.
///
/// The wait is the server's word when it gives one (Retry-After, or a rate-limit body's reset
/// time), else the engine's `Backoff` from ``initialDelay``. A server-named wait longer than
/// ``maximumDelay`` is not slept: the caller gets its typed error at once (a daily limit does
/// not reset in seconds). 429 and 503 are retried for every method (nothing was done); other
/// 5xx answers only for methods that may be repeated (not POST or PATCH: the server may have
/// acted on them). The settings are named as the engine's `ReconnectPolicy` names them.
public struct ServiceRetryPolicy: Sendable, Equatable {
    /// Retries after the first try (0: no retry).
    public var maximumRetries: Int
    /// The first backoff when the server names no wait, in seconds; doubled each retry.
    public var initialDelay: Double
    /// The longest wait before a retry, in seconds, the server's or the backoff's.
    public var maximumDelay: Double

    /// A policy; by default 3 retries, a backoff from 0.5 s, waits up to 30 s.
    public init(maximumRetries: Int = 3, initialDelay: Double = 0.5, maximumDelay: Double = 30) {
        self.maximumRetries = max(0, maximumRetries)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// The longest single sleep, in seconds (about 31 years): a longer wait (an infinite
    /// ``maximumDelay`` and a huge Retry-After) sleeps this long, as `Duration` cannot hold more.
    static let longestSleep: Double = 1e9

    /// No retries at all.
    public static let never = ServiceRetryPolicy(maximumRetries: 0)

    /// Whether an answer with `status` to `method` may be retried.
    public func isRetryable(status: Int, method: HTTPRequest.Method) -> Bool {
        if status == 429 || status == 503 { return true }
        guard (500...599).contains(status) else { return false }
        return method != .post && method != .patch
    }

    /// Seconds to wait before trying again after attempt number `attempt` (from 1) was
    /// answered `response`, or nil when the answer stands: not retryable, out of retries, or
    /// a server-named wait beyond ``maximumDelay``.
    /// - Parameters:
    ///   - attempt: the try that was answered, from 1.
    ///   - response: its answer.
    ///   - method: the request's method (POST and PATCH are not repeated after a 5xx).
    ///   - resetIn: seconds until a rate limit resets, when the body said (SoundCloud's
    ///     `reset_time`); Retry-After wins over it.
    public func wait(after attempt: Int, response: HTTPResponse, method: HTTPRequest.Method,
                     resetIn: Double? = nil) -> Double? {
        guard attempt <= maximumRetries, isRetryable(status: response.status, method: method) else { return nil }
        guard let named = response.retryAfter ?? resetIn.map({ max(0, $0) }) else {
            return Backoff.delay(forRetry: attempt, initialDelay: initialDelay, maximumDelay: maximumDelay)
        }
        return named <= maximumDelay ? named : nil
    }
}

extension ServiceRetryPolicy {
    /// Sends `request` with `send` until the answer stands (success, an error not worth
    /// retrying, or the policy's limits), sleeping between tries; the last answer is returned
    /// whatever its status.
    /// - Parameters:
    ///   - service: the service's name, for the log.
    ///   - cancelled: what to throw when the task is cancelled while waiting.
    ///   - isolation: the caller's actor, which `send` runs on.
    ///   - resetIn: seconds until a rate limit resets, read from an answer's body.
    func retrying<Failure: Error>(_ request: HTTPRequest, service: String, logger: Logger, cancelled: Failure,
                                  isolation: isolated (any Actor)? = #isolation,
                                  resetIn: (HTTPResponse) -> Double? = { _ in nil },
                                  send: () async throws(Failure) -> HTTPResponse) async throws(Failure) -> HTTPResponse {
        let url = RedactedURL.describe(request.url)
        var attempt = 1
        while true {
            if Task.isCancelled { throw cancelled }
            let response = try await send()
            guard let wait = wait(after: attempt, response: response, method: request.method, resetIn: resetIn(response)) else {
                if isRetryable(status: response.status, method: request.method) {
                    logger.warning("\(service) answered HTTP \(response.status); giving up",
                                   metadata: ["url": "\(url)", "tries": "\(attempt)"])
                }
                return response
            }
            logger.notice("\(service) answered HTTP \(response.status); retrying",
                          metadata: ["url": "\(url)", "wait": "\(wait)", "retry": "\(attempt)"])
            do {
                try await Task.sleep(for: Self.sleepDuration(wait))
            } catch {
                throw cancelled
            }
            attempt += 1
        }
    }
}

extension ServiceRetryPolicy {
    /// `seconds` as a sleep: NaN and negatives are no wait, anything beyond ``longestSleep``
    /// (infinity included) is that, so no server number can trap the conversion.
    static func sleepDuration(_ seconds: Double) -> Duration {
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        return .milliseconds(Int64((min(seconds, longestSleep) * 1000).rounded(.up)))
    }

    /// `seconds` rounded up to whole seconds for a message, clamped to 0...``longestSleep``
    /// (a server's Retry-After of 1e30 or infinity must not trap an `Int` conversion).
    static func wholeSeconds(_ seconds: Double) -> Int {
        guard !seconds.isNaN, seconds > 0 else { return 0 }
        return Int(min(seconds, longestSleep).rounded(.up))
    }
}
