import CCurl

/// What a transfer on the ``CurlLoop`` is told, and how it answers: the one interface every
/// request of the engine goes through (progressive input, HLS playlists, keys and segments,
/// the tag reader, the API client).
///
/// Every method is called on the loop thread (headers and body inside libcurl's callbacks,
/// ``curlDone(_:)`` from the loop itself once the handle is off the multi handle), so each
/// must return quickly and never block nor call code it does not control: other transfers (an
/// input feeding the audio) wait meanwhile. A handler that needs its bytes on another thread
/// copies them, or pauses the transfer and has it resumed with ``CurlLoop/resume(_:)`` once it
/// can take them.
protocol CurlTransferHandler: AnyObject, Sendable {
    /// One header line of a response (redirects and interim responses included), as libcurl
    /// hands it: with its line end.
    func curlHeader(_ line: UnsafeRawBufferPointer)
    /// Body bytes. ``CurlDataAnswer/pause`` keeps them in libcurl, which hands the same bytes
    /// again after ``CurlLoop/resume(_:)``.
    func curlData(_ bytes: UnsafeRawBufferPointer) -> CurlDataAnswer
    /// The transfer is over and off the loop: its easy handle belongs to the handler's owner
    /// again (to read its status, its effective URL).
    func curlDone(_ end: CurlTransferEnd)
}

extension CurlTransferHandler {
    /// Headers are ignored unless the handler wants them.
    func curlHeader(_ line: UnsafeRawBufferPointer) {}
}

/// A handler's answer to body bytes.
enum CurlDataAnswer: Sendable {
    /// All taken.
    case take
    /// None taken: libcurl holds them until the transfer is resumed.
    case pause
    /// None taken, and the transfer ends (`CURLE_WRITE_ERROR`).
    case abort
}

/// How a transfer on the ``CurlLoop`` ended.
enum CurlTransferEnd: Sendable, Equatable {
    /// libcurl finished it with this result.
    case finished(CURLcode)
    /// ``CurlLoop/cancel(_:)`` took it off the loop first.
    case cancelled
}
