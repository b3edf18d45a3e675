import Synchronization
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// The transport itself: routing by method, host and path, the record, scripted failures.
@Suite("InMemoryHTTPTransport")
struct InMemoryHTTPTransportTests {
    static func transport() -> InMemoryHTTPTransport {
        let transport = InMemoryHTTPTransport()
        transport.route(.get, host: "api.example.org", path: "/items") { .text("exact", for: $0) }
        transport.route(.get, host: "api.example.org", pathPrefix: "/items/") { .text("prefix \($0.path)", for: $0) }
        transport.route(.get, host: "api.example.org", pathPrefix: "/items/special/") { .text("longer", for: $0) }
        transport.route(.post, host: "api.example.org", path: "/items") { request in
            .text("posted \(request.formValue("name") ?? "-")", status: 201, for: request)
        }
        transport.route(host: "cdn.example.org:8443", pathPrefix: "/") { .text("cdn", for: $0) }
        return transport
    }

    @Test("method, host, port and path choose the handler; an exact path beats a prefix, a longer prefix a shorter")
    func routing() async throws {
        let transport = Self.transport()
        #expect(try await transport.send(HTTPRequest(url: "https://api.example.org/items")).text == "exact")
        #expect(try await transport.send(HTTPRequest(url: "https://API.example.org/items/a%20b?x=1")).text == "prefix /items/a b")
        #expect(try await transport.send(HTTPRequest(url: "https://api.example.org/items/special/1")).text == "longer")
        let posted = try await transport.send(HTTPRequest(method: .post, url: "https://api.example.org/items",
                                                          body: .form([("name", "a&b")])))
        #expect(posted.status == 201 && posted.text == "posted a&b")
        #expect(try await transport.send(HTTPRequest(url: "https://cdn.example.org:8443/f")).text == "cdn")
        #expect(try await transport.send(HTTPRequest(url: "https://cdn.example.org/f")).status == 404)
        #expect(try await transport.send(HTTPRequest(method: .delete, url: "https://api.example.org/items")).status == 404)
        #expect(try await transport.send(HTTPRequest(url: "https://other.example.org/items")).status == 404)
        #expect(transport.requests.count == 8)
        #expect(transport.requests(toHost: "cdn.example.org").count == 2)
        #expect(transport.requests[1].queryValue("x") == "1")
    }

    @Test("a scripted failure answers the next N matching requests, then the route answers again")
    func scriptedFailures() async throws {
        let transport = Self.transport()
        transport.failNext(2, status: 429, retryAfter: 3, host: "api.example.org", pathPrefix: "/items/")
        #expect(transport.pendingFailures == 2)
        let plain = try await transport.send(HTTPRequest(url: "https://api.example.org/items"))
        #expect(plain.status == 200)
        let first = try await transport.send(HTTPRequest(url: "https://api.example.org/items/1"))
        #expect(first.status == 429 && first.headers["Retry-After"] == "3" && first.retryAfter == 3)
        #expect(try await transport.send(HTTPRequest(url: "https://api.example.org/items/2")).status == 429)
        #expect(try await transport.send(HTTPRequest(url: "https://api.example.org/items/3")).text == "prefix /items/3")
        #expect(transport.pendingFailures == 0)
    }

    @Test("redirects are returned unless the request follows them; followed hops are recorded")
    func redirects() async throws {
        let transport = InMemoryHTTPTransport()
        transport.route(.get, host: "a.example.org", path: "/start") { .redirect(to: "https://b.example.org/end", for: $0) }
        transport.route(.get, host: "b.example.org", path: "/end") { .text("arrived", for: $0) }
        let returned = try await transport.send(HTTPRequest(url: "https://a.example.org/start"))
        #expect(returned.status == 302 && returned.headers["Location"] == "https://b.example.org/end")
        let followed = try await transport.send(HTTPRequest(url: "https://a.example.org/start", followsRedirects: true))
        #expect(followed.text == "arrived" && followed.url == "https://b.example.org/end")
        #expect(transport.requests.map(\.host) == ["a.example.org", "a.example.org", "b.example.org"])
    }

    @Test("a cancelled task gets .cancelled with the URL redacted; a non-http URL is refused")
    func cancellationAndInvalidURLs() async throws {
        let transport = Self.transport()
        let task = Task { () async throws(HTTPClientError) -> HTTPResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: "https://api.example.org/items?token=secret"))
        }
        await #expect(throws: HTTPClientError.cancelled(url: "https://api.example.org/items")) { try await task.value }
        await #expect(throws: HTTPClientError.invalidRequest("not an http(s) URL: file:///etc/passwd")) {
            try await transport.send(HTTPRequest(url: "file:///etc/passwd"))
        }
    }

    @Test("upload progress reports the body's size")
    func uploadProgress() async throws {
        let transport = Self.transport()
        let seen = Recorder()
        _ = try await transport.send(HTTPRequest(method: .post, url: "https://api.example.org/items",
                                                 body: .multipart(MultipartForm([.field(name: "a", value: "xyz"),
                                                                                 .data(name: "f", bytes: [1, 2, 3, 4],
                                                                                       filename: "f.bin", contentType: "x/y")]))),
                                     uploadProgress: { sent, total in seen.add(sent, total) })
        #expect(seen.values.last?.0 == 7 && seen.values.last?.1 == 7)
    }
}

/// Collects progress calls.
final class Recorder: Sendable {
    private let state = Mutex<[(Int64, Int64)]>([])
    func add(_ sent: Int64, _ total: Int64) { state.withEngineLock { $0.append((sent, total)) } }
    var values: [(Int64, Int64)] { state.withEngineLock { $0 } }
}
