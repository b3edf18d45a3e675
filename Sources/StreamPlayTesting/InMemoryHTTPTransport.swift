import FoundationEssentials
import StreamPlay
import Synchronization

/// An `HTTPTransport` that never touches the network: it routes each request to a handler by
/// method, host and path, records every request it received, and can answer the next requests
/// to a path with a scripted failure.
///
/// Give it to a service client in place of `CurlHTTPClient`, with the fakes of this library
/// (``FakeSoundCloud``, ``FakeSpotify``, ``FakeSpark``) or handlers of the test's own:
///
/// ```swift
/// let transport = InMemoryHTTPTransport()
/// transport.route(.get, host: "api.example.org", path: "/me") { request in
///     .json(["name": "Ada"], for: request)
/// }
/// transport.failNext(2, status: 503, retryAfter: 0, host: "api.example.org", pathPrefix: "/me")
/// let response = try await transport.send(HTTPRequest(url: "https://api.example.org/me"))
/// #expect(transport.requests.count == 1)
/// ```
///
/// Routing: a scripted failure that matches comes first (failures in the order they were
/// added); then a route for the request's host (and port, when the route names one) whose
/// method matches: an exact path before the longest matching path prefix. A request nothing
/// matches is answered 404. Redirects are returned, not followed, unless the request asks
/// (`HTTPRequest.followsRedirects`), as `HTTPTransport` says; followed redirects are
/// recorded hop by hop.
public final class InMemoryHTTPTransport: HTTPTransport {
    /// Answers one request. Throwing stands for a request that got no response (a network
    /// failure, say).
    public typealias Handler = @Sendable (RecordedRequest) async throws(HTTPClientError) -> HTTPResponse

    private struct Route: Sendable {
        var method: HTTPRequest.Method?
        var host: String
        var port: Int?
        var path: String
        var isPrefix: Bool
        var handler: Handler

        func matches(_ request: RecordedRequest) -> Bool {
            guard request.host == host, port == nil || port == request.port,
                  method == nil || method == request.method
                    || (method == .get && request.method == .head) else { return false }
            return isPrefix ? request.path.hasPrefix(path) : request.path == path
        }
    }

    private struct State: Sendable {
        var routes: [Route] = []
        var failures: [ScriptedFailure] = []
        var requests: [RecordedRequest] = []
    }

    private let state = Mutex(State())

    /// A transport with no routes: every request is answered 404 until routes are added.
    public init() {}

    // MARK: Routes

    /// Sends requests for exactly `path` on `host` to `handler`.
    /// - Parameters:
    ///   - method: the method to answer (nil: any); a GET route answers HEAD too.
    ///   - host: the host, as in the URL (`api.example.org`, or `127.0.0.1:8080` to match the
    ///     port too); compared without case.
    ///   - path: the percent-decoded path (`/tracks/soundcloud:tracks:1`).
    ///   - handler: what answers.
    public func route(_ method: HTTPRequest.Method? = nil, host: String, path: String, to handler: @escaping Handler) {
        add(method, host: host, path: path, isPrefix: false, handler: handler)
    }

    /// Sends requests on `host` whose path starts with `pathPrefix` to `handler`, unless an
    /// exact path or a longer prefix matches.
    /// - Parameters:
    ///   - method: the method to answer (nil: any); a GET route answers HEAD too.
    ///   - host: the host (`api.example.org`, or `host:port` to match the port too).
    ///   - pathPrefix: the start of the percent-decoded paths to answer (`/` for all).
    ///   - handler: what answers.
    public func route(_ method: HTTPRequest.Method? = nil, host: String, pathPrefix: String, to handler: @escaping Handler) {
        add(method, host: host, path: pathPrefix, isPrefix: true, handler: handler)
    }

    private func add(_ method: HTTPRequest.Method?, host: String, path: String, isPrefix: Bool, handler: @escaping Handler) {
        let (name, port) = Self.splitHost(host)
        let route = Route(method: method, host: name, port: port, path: path, isPrefix: isPrefix, handler: handler)
        state.withEngineLock { $0.routes.append(route) }
    }

    // MARK: Scripted failures

    /// Answers the next `count` requests that match with `status` (and `Retry-After`, when
    /// given), before any route sees them; then requests reach their routes again.
    /// - Parameters:
    ///   - count: how many requests get the answer.
    ///   - status: the answer's status (429 by default).
    ///   - retryAfter: seconds for a `Retry-After` header.
    ///   - method: only requests with this method (nil: any).
    ///   - host: only requests to this host (nil: any).
    ///   - pathPrefix: only requests whose path starts with this.
    ///   - headers: more header fields of the answer.
    ///   - body: the answer's body (a service's error shape, say).
    public func failNext(_ count: Int = 1, status: Int = 429, retryAfter: Double? = nil, method: HTTPRequest.Method? = nil,
                         host: String? = nil, pathPrefix: String = "/", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        failNext(ScriptedFailure(count: count, status: status, retryAfter: retryAfter, method: method, host: host,
                                 pathPrefix: pathPrefix, headers: headers, body: body))
    }

    /// Queues `failure` after the failures already queued.
    public func failNext(_ failure: ScriptedFailure) {
        guard failure.remaining > 0 else { return }
        state.withEngineLock { $0.failures.append(failure) }
    }

    /// How many scripted failure answers are still to be given.
    public var pendingFailures: Int {
        state.withEngineLock { $0.failures.reduce(0) { $0 + $1.remaining } }
    }

    // MARK: Recorded requests

    /// Every request received, oldest first (scripted failures and unrouted requests included).
    public var requests: [RecordedRequest] {
        state.withEngineLock { $0.requests }
    }

    /// The requests received for `host` (compared without case; the port is not compared).
    public func requests(toHost host: String) -> [RecordedRequest] {
        let name = Self.splitHost(host).name
        return requests.filter { $0.host == name }
    }

    /// Forgets the requests recorded so far (routes and scripted failures stay).
    public func removeAllRequests() {
        state.withEngineLock { $0.requests.removeAll() }
    }

    // MARK: HTTPTransport

    /// Routes `request` and returns its handler's answer (or a scripted failure, or 404).
    /// - Throws: `HTTPClientError.cancelled` when the task is cancelled before or
    ///   while the request is answered; `HTTPClientError.invalidRequest` for a URL that is
    ///   not http(s) or a file to upload that cannot be read, as `CurlHTTPClient` does; whatever
    ///   a handler throws.
    public func send(_ request: HTTPRequest,
                     uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?) async throws(HTTPClientError) -> HTTPResponse {
        var current = request
        for _ in 0...10 {
            let response = try await answer(current, uploadProgress: uploadProgress)
            guard request.followsRedirects, response.isRedirect, let location = response.headers["Location"] else {
                return response
            }
            current.url = Self.absolute(location, base: current.url)
            if response.status == 303 || ((response.status == 301 || response.status == 302) && current.method == .post) {
                current.method = .get
                current.body = .none
            }
        }
        throw .network(.tooManyRedirects(url: RedactedURL.describe(request.url)))
    }

    private func answer(_ request: HTTPRequest,
                        uploadProgress: (@Sendable (Int64, Int64) -> Void)?) async throws(HTTPClientError) -> HTTPResponse {
        guard let recorded = RecordedRequest(request) else {
            throw .invalidRequest("not an http(s) URL: \(RedactedURL.describe(request.url))")
        }
        let total = try Self.bodySize(request.body)
        if Task.isCancelled { throw .cancelled(url: RedactedURL.describe(request.url)) }
        let next = state.withEngineLock { state -> (failure: ScriptedFailure?, handler: Handler?) in
            state.requests.append(recorded)
            if let index = state.failures.firstIndex(where: { $0.matches(recorded) }) {
                let failure = state.failures[index]
                state.failures[index].remaining -= 1
                if state.failures[index].remaining == 0 { state.failures.remove(at: index) }
                return (failure, nil)
            }
            let candidates = state.routes.filter { $0.matches(recorded) }
            let best = candidates.max { lhs, rhs in
                (lhs.isPrefix ? 0 : 1, lhs.path.count) < (rhs.isPrefix ? 0 : 1, rhs.path.count)
            }
            return (nil, best?.handler)
        }
        if let uploadProgress, total > 0 {
            uploadProgress(0, total)
            uploadProgress(total, total)
        }
        let response: HTTPResponse
        if let failure = next.failure {
            response = failure.response(for: recorded)
        } else if let handler = next.handler {
            response = try await handler(recorded)
        } else {
            response = .text("no route for \(recorded.method) \(recorded.host)\(recorded.path)", status: 404, for: recorded)
        }
        if Task.isCancelled { throw .cancelled(url: RedactedURL.describe(request.url)) }
        return response
    }

    // MARK: Helpers

    /// The bytes a body sends; a file to upload must be readable, as for `CurlHTTPClient`.
    private static func bodySize(_ body: HTTPRequest.Body) throws(HTTPClientError) -> Int64 {
        switch body {
        case .none:
            return 0
        case .bytes(let bytes, _):
            return Int64(bytes.count)
        case .multipart(let form):
            var total: Int64 = 0
            for part in form.parts {
                switch part {
                case .field(_, let value):
                    total += Int64(value.utf8.count)
                case .data(_, let bytes, _, _):
                    total += Int64(bytes.count)
                case .file(_, let path, _, _):
                    guard FileManager.default.isReadableFile(atPath: path),
                          let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
                        throw .invalidRequest("cannot read \(path) to upload")
                    }
                    total += Int64(size)
                }
            }
            return total
        }
    }

    /// `host` or `host:port` split.
    static func splitHost(_ host: String) -> (name: String, port: Int?) {
        let lowered = host.lowercased()
        if let colon = lowered.lastIndex(of: ":"), !lowered.hasSuffix("]"),
           let port = Int(lowered[lowered.index(after: colon)...]) {
            return (String(lowered[..<colon]), port)
        }
        return (lowered, nil)
    }

    /// `location` made absolute against `base`.
    static func absolute(_ location: String, base: String) -> String {
        if location.contains("://") { return location }
        guard let schemeEnd = base.firstRange(of: "://") else { return location }
        let scheme = base[..<schemeEnd.lowerBound]
        if location.hasPrefix("//") { return "\(scheme):\(location)" }
        let rest = base[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let origin = "\(scheme)://\(authority)"
        if location.hasPrefix("/") { return origin + location }
        let path = rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" }
        let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        return origin + directory + location
    }
}
