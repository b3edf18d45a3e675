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
        #expect(headers.retryAfter == nil && !headers.acceptsRanges)
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
