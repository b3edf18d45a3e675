import FoundationEssentials

/// What the engine reads from the header lines of an HTTP response.
///
/// Header lines come from the network and are parsed leniently: a line that is not understood
/// is ignored, and numbers out of range are dropped, never trusted.
struct ResponseHeaders: Equatable {
    /// The status of the current response block (after redirects: of the last one).
    var statusCode = 0
    /// `Accept-Ranges: bytes` was sent.
    var acceptsRanges = false
    /// The total in `Content-Range: bytes A-B/TOTAL`.
    var contentRangeTotal: Int?
    /// The first and last byte in `Content-Range: bytes A-B/TOTAL` (the bytes this 206 sends).
    var contentRange: ClosedRange<Int>?
    /// `Retry-After` in seconds (the delta form; HTTP dates are not used).
    var retryAfter: Double?
    /// `icy-metaint`: audio bytes between two ICY metadata blocks.
    var metadataInterval: Int?
    /// `Content-Type`, as sent.
    var contentType: String?
    /// `Content-Length`: the bytes of this response's body; `nil` for a chunked body, whose
    /// length HTTP/1.1 says to ignore (as libcurl does).
    var contentLength: Int?
    /// `Transfer-Encoding: chunked` was sent.
    private var isChunked = false

    /// What a transport's response head says.
    init(_ head: MediaResponseHead) {
        // Each field taken as a field: a name that looks like a status line is not one.
        for (name, value) in head.headers { consume(name: name.trimmingWhitespace(), value: value.trimmingWhitespace()) }
        statusCode = head.status
    }

    /// No response yet.
    init() {}

    /// Takes one header line (with or without its line ending).
    mutating func consume(_ rawLine: String) {
        let line = rawLine.trimmingWhitespace()
        if line.hasPrefix("HTTP/") || line.hasPrefix("ICY ") {
            // A new response block (after a redirect or a 100 Continue): forget the last one.
            // Old Shoutcast servers answer "ICY 200 OK".
            self = ResponseHeaders()
            statusCode = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        consume(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingWhitespace())
    }

    /// Takes one header field.
    private mutating func consume(name: String, value: String) {
        switch name.lowercased() {
        case "accept-ranges":
            acceptsRanges = value.lowercased().contains("bytes")
        case "icy-metaint":
            metadataInterval = Int(value).flatMap { $0 > 0 ? $0 : nil }
        case "content-type":
            contentType = value
        case "content-length":
            contentLength = isChunked ? nil : Int(value).flatMap { $0 >= 0 ? $0 : nil }
        case "transfer-encoding":
            if value.lowercased().contains("chunked") {
                isChunked = true
                contentLength = nil
            }
        case "retry-after":
            retryAfter = Double(value).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        case "content-range":
            // "bytes 100-999/1000", "bytes 100-999/*", or "bytes */1000" (with a 416)
            guard let slash = value.lastIndex(of: "/") else { break }
            if let total = Int(value[value.index(after: slash)...]), total >= 0 {
                contentRangeTotal = total
            }
            let range = value[..<slash].lowercased()
            guard range.hasPrefix("bytes ") else { break }
            let bounds = range.dropFirst("bytes ".count).split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first {
                contentRange = first...last
            }
        default:
            break
        }
    }
}
