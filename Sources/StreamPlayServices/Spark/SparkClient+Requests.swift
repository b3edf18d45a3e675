import Logging
import StreamPlay

extension SparkClient {
    /// GET `path` (`/my/account`, `/v1/listings`, or a full URL on the API's origin) and
    /// return `Results`.
    public func get(_ path: String, parameters: [String: String] = [:]) async throws(SparkError) -> [JSON] {
        try await api(.get, path, parameters: parameters)
    }

    /// POST `body` to `path`, sent as `{"D": body}` JSON, and return `Results`.
    public func post(_ path: String, body: JSON, parameters: [String: String] = [:]) async throws(SparkError) -> [JSON] {
        try await api(.post, path, parameters: parameters, body: body)
    }

    /// PUT `body` to `path`, sent as `{"D": body}` JSON, and return `Results` (often none).
    public func put(_ path: String, body: JSON, parameters: [String: String] = [:]) async throws(SparkError) -> [JSON] {
        try await api(.put, path, parameters: parameters, body: body)
    }

    /// DELETE `path` and return `Results` (often none).
    public func delete(_ path: String, parameters: [String: String] = [:]) async throws(SparkError) -> [JSON] {
        try await api(.delete, path, parameters: parameters)
    }

    /// Any call (SparkiOS's `api:httpMethod:parameters:`): `Results` of the answer's envelope.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: relative to the API URL (`/my/account`; a leading `/v1` is accepted too), or
    ///     a full URL on the API URL's origin (scheme, host and port).
    ///   - parameters: query parameters (`_limit`, `_page`, `_filter`, ...).
    ///   - body: the attributes to send, wrapped as `{"D": body}` (a body that already is
    ///     `{"D": ...}` is sent as it is).
    /// - Throws: ``SparkError/api(code:message:status:)`` with Spark's code, message and the
    ///   HTTP status; ``SparkError/authorization(_:)`` when there is no session (or it ended);
    ///   ``SparkError/invalidRequest(reason:)``, before any request, for a URL off the API's
    ///   origin (it would receive the session's token).
    public func api(_ method: HTTPRequest.Method, _ path: String, parameters: [String: String] = [:],
                    body: JSON? = nil) async throws(SparkError) -> [JSON] {
        try await apiResponse(method, path, parameters: parameters, body: body).results
    }

    /// Like ``api(_:_:parameters:body:)``, with the pagination (ask for it with
    /// `_pagination=1`) and the HTTP status.
    public func apiResponse(_ method: HTTPRequest.Method, _ path: String, parameters: [String: String] = [:],
                            body: JSON? = nil) async throws(SparkError) -> SparkResponse {
        var request = HTTPRequest(method: method, url: try url(for: path, parameters: parameters))
        if let body { request.body = .json(Self.envelope(body).encoded()) }
        let location = RedactedURL.describe(request.url)
        do {
            let answer = try SparkResponse(try await authorizedSend(request))
            logger.info("Spark API call", metadata: ["method": "\(method)", "url": "\(location)", "status": "\(answer.status)"])
            logger.debug("Spark API answer", metadata: ["results": "\(answer.results.count)",
                                                        "pagination": "\(answer.pagination.map { "\($0.currentPage)/\($0.totalPages)" } ?? "none")"])
            return answer
        } catch {
            logger.error("Spark API call failed", metadata: ["method": "\(method)", "url": "\(location)", "error": "\(error)"])
            throw error
        }
    }

    /// The signed-in user's account (`/my/account`).
    public func account() async throws(SparkError) -> SparkAccount {
        guard let first = try await get("/my/account").first else {
            throw .invalidResponse(reason: "/my/account answered no Results", status: 200)
        }
        return try SparkAccount(json: first)
    }

    /// The URL of `path` with `parameters` (sorted, so URLs are stable).
    /// - Throws: ``SparkError/invalidRequest(reason:)`` when it is off the API URL's origin:
    ///   the session's token goes to the API only.
    nonisolated func url(for path: String, parameters: [String: String]) throws(SparkError) -> String {
        var path = path
        // SparkiOS's commands omit /v1, which the API URL has; accept both.
        if configuration.apiURL.hasSuffix("/v1"), path.hasPrefix("/v1/") { path = String(path.dropFirst(3)) }
        let base = URLOrigin.hasScheme(path) ? path : configuration.apiURL(path)
        guard let origin = URLOrigin(base), origin == URLOrigin(configuration.apiURL) else {
            throw .invalidRequest(reason: "\(RedactedURL.describe(base)) is not on the API's origin; the token is sent only there")
        }
        guard !parameters.isEmpty else { return base }
        let query = FormEncoding.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// `body` as Spark wants writes: `{"D": body}`, unless it already is one.
    static func envelope(_ body: JSON) -> JSON {
        if let object = body.object, object.count == 1, object["D"] != nil { return body }
        return ["D": body]
    }
}
