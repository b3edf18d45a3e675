import StreamPlay

/// A successful Spark answer: the `Results` array of its `{"D": {...}}` envelope, and the
/// pagination when one was asked for.
public struct SparkResponse: Sendable, Equatable {
    /// `D.Results` (empty when the answer had none, as a PUT's or DELETE's).
    public let results: [JSON]
    /// `D.Pagination`, if present.
    public let pagination: SparkPagination?
    /// The HTTP status (200, or 201 for a created resource).
    public let status: Int

    /// A response.
    public init(results: [JSON], pagination: SparkPagination?, status: Int) {
        self.results = results
        self.pagination = pagination
        self.status = status
    }

    /// Reads the envelope of `response`.
    /// - Throws: ``SparkError/api(code:message:status:)`` for `Success: false` (or an error
    ///   status), ``SparkError/invalidResponse(reason:status:)`` for a body that is no envelope.
    init(_ response: HTTPResponse) throws(SparkError) {
        if response.isSuccess && response.body.isEmpty {
            self.init(results: [], pagination: nil, status: response.status)  // HEAD, 204
            return
        }
        guard let json = try? JSON(parsing: response.body), let envelope = json["D"], envelope.object != nil else {
            throw .invalidResponse(reason: "the body is not a {\"D\": {...}} envelope", status: response.status)
        }
        if envelope["Success"]?.bool == true && response.isSuccess {
            self.init(results: envelope["Results"]?.array ?? [], pagination: SparkPagination(json: envelope["Pagination"]),
                      status: response.status)
            return
        }
        throw .api(code: envelope["Code"]?.int ?? response.status,
                   message: envelope["Message"]?.string ?? "no message", status: response.status)
    }

    /// The typed error of a failed envelope in `response`, if the body is one.
    static func error(in response: HTTPResponse) -> SparkError? {
        guard let envelope = try? JSON(parsing: response.body)["D"], envelope["Success"]?.bool == false else { return nil }
        return .api(code: envelope["Code"]?.int ?? response.status,
                    message: envelope["Message"]?.string ?? "no message", status: response.status)
    }

    /// Whether `response` is Spark's "session token has expired" (401, code 1020): the one
    /// answer that renews the session. 401 with 1000 (a bad or revoked token) is not.
    static func isSessionExpired(_ response: HTTPResponse) -> Bool {
        response.status == 401 && error(in: response)?.code == 1020
    }
}
