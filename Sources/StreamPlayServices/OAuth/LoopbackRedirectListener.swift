import FoundationEssentials
import StreamPlay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The native-app redirect of RFC 8252 §7.3: a one-shot HTTP listener on 127.0.0.1 that takes
/// the browser's redirect and answers it with a short page.
///
/// It binds 127.0.0.1 only (never all interfaces: the code must not be reachable from the
/// network), on a random port or a configured one, and waits on a dedicated thread, so the
/// Swift task pool is never blocked. Requests for other paths (a favicon) get 404 and the
/// listener keeps waiting.
public final class LoopbackRedirectListener: Sendable {
    /// The port bound.
    public let port: Int
    /// The path the redirect comes to.
    public let path: String
    private let socket: Int32
    /// `waiting`: an accept thread is using the socket, so it, not `close()`, closes it (a
    /// descriptor closed under a thread's poll could be reused by another file meanwhile).
    private let state = Mutex<(closed: Bool, cancelled: Bool, waiting: Bool)>((false, false, false))

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/PATH`.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Binds 127.0.0.1:`port` (0: a free port the system picks).
    public init(port: Int = 0, path: String = "/callback") throws(OAuth2Error) {
        self.path = path
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .redirectListenerFailed(reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .redirectListenerFailed(reason: "cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        socket = descriptor
    }

    deinit {
        close()
    }

    /// Stops listening (a wait under way ends with an error).
    public func close() {
        let closeNow = state.withEngineLock { state -> Bool? in
            guard !state.closed else { return nil }
            state.closed = true
            return !state.waiting
        }
        guard let closeNow else { return }
        shutdown(socket, Int32(SHUT_RDWR))  // wakes a waiting thread's poll
        if closeNow { Glibc.close(socket) }
    }

    /// Waits for the redirect and returns its full URL (`http://127.0.0.1:PORT/callback?...`).
    /// Cancelling the task ends the wait.
    public func waitForRedirect(timeout: Double = 300) async throws(OAuth2Error) -> String {
        let refusal = state.withEngineLock { state -> OAuth2Error? in
            if state.closed { return .redirectListenerFailed(reason: "closed") }
            if state.waiting { return .redirectListenerFailed(reason: "already waiting for a redirect") }
            state.waiting = true
            return nil
        }
        if let refusal { throw refusal }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, OAuth2Error>, Never>) in
                let waitForRedirect: @Sendable () -> Void = { [self] in
                    let result = accept(timeout: timeout)
                    let closeNow = state.withEngineLock { state -> Bool in
                        state.waiting = false
                        return state.closed
                    }
                    if closeNow { Glibc.close(socket) }
                    continuation.resume(returning: result)
                }
                // Without a thread of its own, the wait runs here: it is bounded by `timeout`.
                if !EngineThread.detached(name: "oauth-redirect", body: waitForRedirect) { waitForRedirect() }
            }
        } onCancel: {
            state.withEngineLock { $0.cancelled = true }
        }
        return try result.get()
    }

    /// Accepts connections until one brings the redirect; runs on its own thread.
    private func accept(timeout: Double) -> Result<String, OAuth2Error> {
        // At most a day: a caller's huge or infinite timeout must not overflow.
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout.isFinite ? min(max(timeout, 0), 86400) * 1000 : 86_400_000))
        while true {
            let (closed, cancelled) = state.withEngineLock { ($0.closed, $0.cancelled) }
            if closed || cancelled { return .failure(.redirectListenerFailed(reason: cancelled ? "cancelled" : "closed")) }
            guard ContinuousClock.now < deadline else { return .failure(.timedOut(seconds: timeout)) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            // Short polls: a cancellation is noticed within 100 ms.
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let client = Glibc.accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { Glibc.close(client) }
            guard let target = Self.readRequestTarget(client) else { continue }
            let requestPath = String(target.prefix { $0 != "?" })
            guard requestPath == path else {
                Self.respond(client, status: "404 Not Found", body: "Not found.")
                continue
            }
            let fields = FormEncoding.decode(target.drop { $0 != "?" }.dropFirst())
            // A stray request (a browser's retry without a query, another local program) must
            // not end the sign-in: only a redirect that carries an answer does.
            guard fields.contains(where: { $0.0 == "code" || $0.0 == "error" || $0.0.hasPrefix("openid.") }) else {
                Self.respond(client, status: "400 Bad Request", body: "This address only takes the sign-in redirect.")
                continue
            }
            let failed = fields.contains { $0.0 == "error" || ($0.0 == "openid.mode" && $0.1 != "id_res") }
            Self.respond(client, status: "200 OK", body: failed
                ? "Authorization was not granted. You can close this window and return to StreamPlay."
                : "StreamPlay is signed in. You can close this window.")
            return .success("http://127.0.0.1:\(port)\(target)")
        }
    }

    /// The request target of a GET request line, read within 5 seconds and 16 KiB.
    private static func readRequestTarget(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while received.count < 16 * 1024 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += buffer[..<count]
            if received.contains(UInt8(ascii: "\n")) { break }
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/") else { return nil }
        return String(parts[1])
    }

    private static func respond(_ client: Int32, status: String, body: String) {
        let page = "<!doctype html><html><head><meta charset=\"utf-8\"><title>StreamPlay</title></head><body><p>\(body)</p></body></html>"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\(page)"
        _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
