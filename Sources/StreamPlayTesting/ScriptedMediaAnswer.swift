import StreamPlay

/// How a ``ScriptedMediaServer`` answers one request for a resource it serves: as a good
/// server would, or with one of the faults a player meets on the network.
///
/// Offsets are positions in the resource (not in one response's body), so that a test reads
/// "cut at byte 5 000" and then expects a Range request from byte 5 000.
public enum ScriptedMediaAnswer: Sendable, Equatable {
    /// The resource as a good server sends it: 200 with the whole body, or 206 with the
    /// requested range (from its first byte to its last, or to the resource's end; 416 past
    /// the end). Requests without a script get this.
    case normal
    /// The body stops at byte `offset` of the resource and the connection breaks there
    /// (`CurlFailureKind.connectionBroken`). A request from `offset` or later breaks at once.
    case cut(atByte: Int)
    /// The body stops at byte `offset` of the resource and nothing more comes, the connection
    /// open, until the input gives up on it (its stall timeout) and cancels.
    case stall(atByte: Int)
    /// An error status with no body, and a `Retry-After` of `retryAfter` seconds when given:
    /// 403 or 410 for an expired signed URL, 429 or 503 for a rate limit or a busy server.
    case status(Int, retryAfter: Int? = nil)
    /// A `Content-Length` (and `Content-Range` total) claiming the resource is `length` bytes
    /// long. Shorter than claimed, the connection breaks after the last byte, as libcurl reports
    /// a body shorter than its length; longer, the body stops at the claimed length.
    case lyingLength(Int)
    /// The Range header is ignored: 200 with the whole body, whatever was asked for.
    case ignoringRange
    /// A Range request is answered with at most `bytes` bytes from its start: 206, and a
    /// `Content-Range` naming what is sent, complete (as some CDNs cap open-ended ranges).
    /// A request without a Range is answered whole.
    case cappedRange(bytes: Int)
    /// A Range request is answered with these bytes of the resource, whatever it asked for
    /// (clamped to the resource): 206, and a `Content-Range` naming them, as a server that
    /// rounds ranges to its blocks does. A request without a Range is answered whole.
    case rangeAnswered(ClosedRange<Int>)
}
