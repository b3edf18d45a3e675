// Fuzz target: HTTP response header lines, as libcurl hands them over.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var headers = ResponseHeaders()
    var start = 0
    let bytes = UnsafeBufferPointer(start: data, count: size)
    while start <= size {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? size
        // libcurl passes bytes; the transfer reads them as Latin-1, which takes any byte.
        let line = String(bytes[start..<end].map { Character(Unicode.Scalar($0)) })
        headers.consume(line)
        precondition((headers.metadataInterval ?? 1) > 0)
        precondition((headers.retryAfter ?? 0) >= 0 && (headers.retryAfter ?? 0).isFinite)
        precondition((headers.contentRangeTotal ?? 0) >= 0)
        start = end + 1
    }
    return 0
}
