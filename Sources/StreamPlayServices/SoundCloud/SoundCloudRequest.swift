/// A request under way, as ``SoundCloudClient/request(_:_:parameters:body:uploadProgress:)``
/// returns it (the wrapper's performMethod connection): cancel it, or await its answer.
///
/// The request starts at once. Awaiting ``response`` from a task that is then cancelled
/// cancels the request too.
public final class SoundCloudRequest: Sendable {
    private let task: Task<Result<SoundCloudResponse, SoundCloudError>, Never>

    init(_ operation: @escaping @Sendable () async -> Result<SoundCloudResponse, SoundCloudError>) {
        task = Task { await operation() }
    }

    /// Stops the request (its transfer, or its wait before a retry); awaiting it then throws
    /// ``SoundCloudError/cancelled``.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }

    /// The decoded JSON body of a successful answer.
    /// - Throws: ``SoundCloudError`` for an error status, no answer, or a cancellation.
    public var response: JSON {
        get async throws(SoundCloudError) { try await fullResponse.json }
    }

    /// The successful answer with its status and headers.
    /// - Throws: ``SoundCloudError`` for an error status, no answer, or a cancellation.
    public var fullResponse: SoundCloudResponse {
        get async throws(SoundCloudError) {
            let task = task
            let result = await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            return try result.get()
        }
    }
}
