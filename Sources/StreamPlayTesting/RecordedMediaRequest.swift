import StreamPlay

/// A request a ``ScriptedMediaServer`` received, with how it was answered.
public struct RecordedMediaRequest: Sendable, Equatable {
    /// The request as the input made it.
    public var request: MediaRequest
    /// The answer it got.
    public var answer: ScriptedMediaAnswer
    /// When it arrived, for tests of delays between requests.
    public var receivedAt: ContinuousClock.Instant

    /// The URL asked for.
    public var url: String { request.url }
    /// The first byte asked for, or `nil` for no Range header.
    public var rangeStart: Int? { request.rangeStart }
    /// The last byte asked for, or `nil` for no end to the range.
    public var rangeEnd: Int? { request.rangeEnd }

    /// A record of `request`, answered with `answer` at `receivedAt`.
    public init(request: MediaRequest, answer: ScriptedMediaAnswer, receivedAt: ContinuousClock.Instant) {
        self.request = request
        self.answer = answer
        self.receivedAt = receivedAt
    }
}
