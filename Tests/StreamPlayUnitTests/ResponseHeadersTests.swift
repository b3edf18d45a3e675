import Testing
@testable import StreamPlay

/// The header lines the engine reads from a response, as a transport hands them.
@Suite("Response headers")
struct ResponseHeadersTests {
    static func parse(_ lines: [String]) -> ResponseHeaders {
        var headers = ResponseHeaders()
        for line in lines { headers.consume(line + "\r\n") }
        return headers
    }

    @Test("a chunked body has no length, whichever header comes first")
    func chunkedHasNoLength() {
        let before = Self.parse(["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Content-Length: 1000"])
        let after = Self.parse(["HTTP/1.1 200 OK", "Content-Length: 1000", "Transfer-Encoding: gzip, chunked"])
        #expect(before.contentLength == nil && after.contentLength == nil)
        #expect(Self.parse(["HTTP/1.1 200 OK", "Content-Length: 1000"]).contentLength == 1000)
    }

    @Test("only the last response block counts: a redirect's headers are forgotten")
    func lastBlockCounts() {
        let headers = Self.parse(["HTTP/1.1 302 Found", "Content-Length: 5", "Retry-After: 3", "Accept-Ranges: bytes",
                                  "HTTP/1.1 206 Partial Content", "Content-Range: bytes 100-199/1000", "Content-Length: 100"])
        #expect(headers.statusCode == 206 && headers.contentLength == 100 && headers.contentRangeTotal == 1000)
        #expect(headers.contentRange == 100...199)
        #expect(headers.retryAfter == nil && !headers.acceptsRanges)
    }

    @Test("Content-Range: the bytes sent and the total, each only when it is a number that can be right")
    func contentRange() {
        func parse(_ value: String) -> ResponseHeaders { Self.parse(["HTTP/1.1 206 Partial Content", "Content-Range: \(value)"]) }
        #expect(parse("bytes 0-0/1").contentRange == 0...0 && parse("bytes 0-0/1").contentRangeTotal == 1)
        #expect(parse("bytes 5-9/*").contentRange == 5...9 && parse("bytes 5-9/*").contentRangeTotal == nil)
        #expect(parse("bytes */1000").contentRange == nil && parse("bytes */1000").contentRangeTotal == 1000)
        for bad in ["bytes 9-5/10", "bytes -5-9/10", "bytes 5-/10", "items 0-9/10", "bytes 0-99999999999999999999/10", "bytes 1-2-3/10"] {
            #expect(parse(bad).contentRange == nil, "\(bad)")
        }
    }

    @Test("numbers that cannot be right are dropped")
    func badNumbers() {
        let headers = Self.parse(["HTTP/1.1 503 Busy", "Content-Length: -4", "Retry-After: nan", "icy-metaint: 0"])
        #expect(headers.contentLength == nil && headers.retryAfter == nil && headers.metadataInterval == nil)
    }

    @Test("a transport's head is taken field by field: a field named like a status line starts no new block")
    func headFieldsAreFields() {
        let head = MediaResponseHead(status: 206, headers: HTTPHeaders([
            (name: "Content-Range", value: "bytes 0-99/1000"), (name: "HTTP/1.1 200 OK", value: "x"),
            (name: "Accept-Ranges", value: " bytes "), (name: "Retry-After", value: "2")]))
        let headers = ResponseHeaders(head)
        #expect(headers.statusCode == 206 && headers.contentRangeTotal == 1000)
        #expect(headers.acceptsRanges && headers.retryAfter == 2)
    }
}
