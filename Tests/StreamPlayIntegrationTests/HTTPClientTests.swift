import Foundation
import StreamPlay
import Testing

/// The async HTTP client the API clients use, on the engine's libcurl, against real servers.
@Suite("HTTP client", .needsTestServers)
struct HTTPClientTests {
    @Test("GET with headers; redirects returned, or followed when asked")
    func getAndRedirects() async throws {
        let client = CurlHTTPClient()
        let base = try TestEnvironment.http()
        let response = try await client.send(HTTPRequest(url: "\(base)/cbr-44k-mono.mp3", headers: ["Range": "bytes=0-9"]))
        #expect(response.status == 206 && response.body.count == 10)
        #expect(response.headers["content-range"]?.hasPrefix("bytes 0-9/") == true)
        let missing = try await client.send(HTTPRequest(url: "\(base)/status/404"))
        #expect(missing.status == 404, "an error status is an answer, not an error")
    }

    @Test("TLS is verified by default: a self-signed server fails, its CA makes it pass")
    func tlsVerification() async throws {
        let url = "\(try TestEnvironment.https())/cbr-44k-mono.mp3"
        do {
            _ = try await CurlHTTPClient().send(HTTPRequest(method: .head, url: url))
            Issue.record("an unverified certificate was accepted")
        } catch {
            guard case .network(let cause) = error, cause.code == .tlsFailure else { Issue.record("expected a TLS failure, got \(error)"); return }
        }
        var configuration = CurlHTTPClient.Configuration()
        configuration.caCertificatesPath = try TestEnvironment.caFile()
        let response = try await CurlHTTPClient(configuration: configuration).send(HTTPRequest(method: .head, url: url))
        #expect(response.status == 200)
    }

    @Test("cancelling the task stops a request that hangs, at once")
    func cancellation() async throws {
        let client = CurlHTTPClient()
        let url = "\(try TestEnvironment.blackHole())/anything"
        let task = Task { try await client.send(HTTPRequest(url: url, timeout: 30)) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the request finished")
        } catch {
            guard case .cancelled = error as? HTTPClientError else { Issue.record("\(error)"); return }
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("a refused connection and a timeout are typed network errors; no query in them")
    func networkErrors() async throws {
        do {
            _ = try await CurlHTTPClient().send(HTTPRequest(url: "\(try TestEnvironment.refused())/x?token=secret"))
            Issue.record("a refused connection answered")
        } catch {
            guard case .network(let cause)? = error as? HTTPClientError, cause.code == .connectionFailed, let url = cause.url else { Issue.record("\(error)"); return }
            #expect(!url.contains("secret"))
        }
        await #expect(throws: HTTPClientError.self) {
            _ = try await CurlHTTPClient().send(HTTPRequest(url: "\(try TestEnvironment.blackHole())/x", timeout: 0.5))
        }
        await #expect(throws: HTTPClientError.invalidRequest("not an http(s) URL: file:///etc/passwd")) {
            _ = try await CurlHTTPClient().send(HTTPRequest(url: "file:///etc/passwd"))
        }
    }

    @Test("form encoding round-trips every byte")
    func formEncoding() {
        let fields = [("a b", "c&d=e"), ("ü", "/?#+%"), ("empty", "")]
        #expect(FormEncoding.encode(fields) == "a%20b=c%26d%3De&%C3%BC=%2F%3F%23%2B%25&empty=")
        #expect(FormEncoding.decode(FormEncoding.encode(fields)).map { "\($0.0)=\($0.1)" } == fields.map { "\($0.0)=\($0.1)" })
        #expect(FormEncoding.percentDecode("a+b%2") == "a b%2")
    }
}
