import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

/// The RFC 8252 loopback redirect listener.
@Suite("Loopback redirect listener")
struct LoopbackListenerTests {
    @Test("bound to 127.0.0.1 only, on the port it names")
    func loopbackOnly() throws {
        let listener = try LoopbackRedirectListener()
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        // /proc/net/tcp lists listening sockets as HEXADDR:HEXPORT; 0100007F is 127.0.0.1.
        // Read to the end: /proc files report no size, and a busy machine lists many sockets.
        let table = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/net/tcp")).readDataToEndOfFile(), as: UTF8.self)
        let port = String(format: "%04X", listener.port)
        let local = table.split(separator: "\n").dropFirst().map { $0.split(separator: " ")[1] }.filter { $0.hasSuffix(":\(port)") }
        #expect(local == ["0100007F:\(port)"], "\(local)")
        let v6 = FileHandle(forReadingAtPath: "/proc/net/tcp6").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        #expect(!v6.contains(":\(port) "), "not on IPv6 wildcard either")
    }

    @Test("takes the redirect, answers a page, ignores other paths")
    func redirect() async throws {
        let listener = try LoopbackRedirectListener()
        async let redirect = listener.waitForRedirect(timeout: 20)
        let client = CurlHTTPClient()
        let favicon = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(listener.port)/favicon.ico"))
        #expect(favicon.status == 404)
        // A request to the path without an answer in it does not end the sign-in.
        let stray = try await client.send(HTTPRequest(url: "\(listener.redirectURI)?hello=1"))
        #expect(stray.status == 400)
        let page = try await client.send(HTTPRequest(url: "\(listener.redirectURI)?code=c0de&state=s"))
        #expect(page.status == 200 && page.text.contains("close this window"))
        #expect(try await redirect == "\(listener.redirectURI)?code=c0de&state=s")
    }

    @Test("a wait ends with an error when nothing comes in time, or when cancelled")
    func timeoutAndCancel() async throws {
        let listener = try LoopbackRedirectListener()
        await #expect(throws: OAuth2Error.timedOut(seconds: 0.3)) { try await listener.waitForRedirect(timeout: 0.3) }
        let task = Task { try await listener.waitForRedirect(timeout: 30) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: OAuth2Error.self) { try await task.value }
    }

    @Test("close() ends a wait under way; the waiting thread lets go of the socket; one wait at a time")
    func closeDuringWait() async throws {
        let listener = try LoopbackRedirectListener()
        let port = listener.port
        let task = Task { try await listener.waitForRedirect(timeout: 30) }
        try await Task.sleep(for: .milliseconds(200))
        await #expect(throws: OAuth2Error.redirectListenerFailed(reason: "already waiting for a redirect")) {
            try await listener.waitForRedirect(timeout: 1)
        }
        listener.close()
        await #expect(throws: OAuth2Error.redirectListenerFailed(reason: "closed")) { try await task.value }
        await #expect(throws: OAuth2Error.redirectListenerFailed(reason: "closed")) { try await listener.waitForRedirect(timeout: 1) }
        // The socket is closed, not leaked: its port can be bound again.
        #expect(throws: Never.self) { _ = try LoopbackRedirectListener(port: port) }
    }
}
