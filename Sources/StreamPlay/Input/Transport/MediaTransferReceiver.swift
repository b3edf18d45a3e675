/// What a ``MediaTransport`` tells an input about one transfer.
///
/// Every method is called on the transport's thread, one at a time, and returns quickly
/// without blocking: a transport may serve other transfers on the same thread.
public protocol MediaTransferReceiver: AnyObject, Sendable {
    /// The final response's status and header fields (after redirects), before its first body
    /// byte; at most once, and not at all when no response came (a refused connection).
    func receiveHead(_ head: MediaResponseHead)
    /// Body bytes, valid during the call only. ``MediaBodyAnswer/pause`` takes none of them:
    /// the transport holds them, and hands the same bytes again after
    /// ``MediaTransferControl/resume()``.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> MediaBodyAnswer
    /// The transfer is over; nothing is called after this.
    func receiveEnd(_ end: MediaTransferEnd)
}

/// A ``MediaTransferReceiver``'s answer to body bytes.
public enum MediaBodyAnswer: Sendable, Equatable {
    /// All of them were taken.
    case take
    /// None was taken: hold them until ``MediaTransferControl/resume()``.
    case pause
}
