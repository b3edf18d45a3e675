/// Where the engine's requests for media run: the engine's libcurl loop, or a stand-in that
/// answers from a script (StreamPlayTesting's `ScriptedMediaServer`).
///
/// A transport carries bytes and nothing else. What to ask for and what to do about an answer
/// stays in the engine: Range requests and restarts, the stall timeout, reconnects with their
/// backoff and Retry-After, renewing an expired URL, lengths that do not add up, live playlist
/// reloads. A stand-in transport therefore exercises the engine's real recovery, with only the
/// network replaced.
///
/// Give one with ``PlayerConfiguration/mediaTransport``; by default (`nil`) every transfer runs
/// on libcurl. It carries every request a ``Player`` makes: a progressive input's audio, a radio
/// playlist (.m3u, .pls), an HLS stream's playlists, keys, init segments and segments, and the
/// Range request for an MP3's ID3v1 tag. The service clients' API calls go through their own
/// ``HTTPTransport``.
public protocol MediaTransport: Sendable {
    /// Starts `request`, reporting to `receiver`, and returns at once.
    ///
    /// The transport then calls `receiver` from a thread of its own, one call at a time:
    /// ``MediaTransferReceiver/receiveHead(_:)`` once a response came (before any body),
    /// ``MediaTransferReceiver/receiveBody(_:)`` with the body's bytes, and
    /// ``MediaTransferReceiver/receiveEnd(_:)`` exactly once, last (it may come before this
    /// returns, for a request that cannot start).
    /// - Returns: the handle through which the input resumes a paused transfer or cancels it.
    func startTransfer(_ request: MediaRequest, receiver: any MediaTransferReceiver) -> any MediaTransferControl
}

/// A running transfer of a ``MediaTransport``, as its input steers it. Both calls come from any
/// thread, must not wait for anything but a receiver's call under way, and are harmless once
/// the transfer has ended.
public protocol MediaTransferControl: Sendable {
    /// Goes on after the receiver answered ``MediaBodyAnswer/pause``: the bytes it did not
    /// take are handed again.
    func resume()
    /// Ends the transfer: no more body bytes are handed after this returns (a
    /// ``MediaTransferReceiver/receiveBody(_:)`` call already under way may finish), and the
    /// receiver hears ``MediaTransferEnd/cancelled`` (or the end the transfer had already
    /// reached). A transfer ends as cancelled only when asked to: the input treats any other
    /// end by what it says.
    func cancel()
}
