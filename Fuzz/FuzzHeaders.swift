// Fuzz target: HTTP response header lines, as libcurl hands them over, and the same lines as a
// transport's head (name and value split at the first colon).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var headers = ResponseHeaders()
    var fields: [(name: String, value: String)] = []
    var start = 0
    let bytes = UnsafeBufferPointer(start: data, count: size)
    while start <= size {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? size
        // libcurl passes bytes; the transfer reads them as Latin-1, which takes any byte.
        let line = String(bytes[start..<end].map { Character(Unicode.Scalar($0)) })
        headers.consume(line)
        check(headers)
        if let colon = line.firstIndex(of: ":") {
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        start = end + 1
    }
    check(ResponseHeaders(MediaResponseHead(status: 200, headers: HTTPHeaders(fields))))
    return 0
}

/// What the input relies on, whatever the bytes.
private func check(_ headers: ResponseHeaders) {
    precondition((headers.metadataInterval ?? 1) > 0)
    precondition((headers.retryAfter ?? 0) >= 0 && (headers.retryAfter ?? 0).isFinite)
    precondition((headers.contentRangeTotal ?? 0) >= 0)
    precondition((headers.contentLength ?? 0) >= 0)
}
