import Foundation
import StreamPlay
import Testing
@testable import StreamPlayServices

/// Spark's response envelope, written down from its documentation as the project's test data:
/// every answer of the Spark API is `{"D": {...}}`; `D.Success` says how it went; a success may
/// carry `Results` (an array of objects) and `Pagination`; a failure carries `Code` (Spark's
/// error code) and `Message`, and may carry `Errors` and `SparkQLErrors`; each code comes with
/// the HTTP status of Spark's error table.
///
/// Sources, read 2026-11-23: https://sparkplatform.com/docs/supporting_documentation/standard_response_format
/// and https://sparkplatform.com/docs/supporting_documentation/error_codes (the table there
/// pairs 1550 "Over rate limit" with HTTP 503; a copy harvested 2026-07-26 has the same codes).
enum SparkEnvelopeSchema {
    /// Where these facts come from, for failure messages.
    static let source = "Spark's standard_response_format and error_codes docs, read 2026-11-23"

    /// The HTTP status of each error code in Spark's error table.
    static let statusOfCode: [Int: Int] = [
        404: 404, 405: 405, 1000: 401, 1005: 500, 1010: 401, 1013: 403, 1015: 403, 1016: 400, 1017: 405,
        1018: 405, 1019: 403, 1020: 401, 1021: 403, 1022: 422, 1023: 503, 1024: 503, 1026: 500, 1030: 403,
        1035: 400, 1040: 400, 1041: 400, 1050: 400, 1053: 400, 1055: 409, 1060: 400, 1061: 400, 1100: 403,
        1110: 409, 1500: 403, 1505: 403, 1510: 503, 1515: 503, 1516: 503, 1550: 503, 2000: 400, 2001: 400,
        2002: 400, 2003: 400, 2005: 503, 2500: 400, 2505: 409, 3000: 400,
    ]

    /// The members of `Pagination`, each a whole number.
    static let paginationMembers = ["TotalRows", "PageSize", "TotalPages", "CurrentPage"]

    /// What in an answer with `status` and `body` leaves the envelope; empty when it holds.
    static func violations(status: Int, body: [UInt8]) -> [String] {
        if body.isEmpty { return (200...299).contains(status) ? [] : ["HTTP \(status) with an empty body"] }
        guard let json = try? JSON(parsing: body), let root = json.object else { return ["the body is not a JSON object"] }
        guard root.count == 1, let envelope = root["D"], envelope.object != nil else {
            return ["the body's only member must be the object \"D\" (members: \(root.keys.sorted()))"]
        }
        guard let success = envelope["Success"]?.bool else { return ["D.Success is missing or not a boolean"] }
        var problems: [String] = []
        if success {
            if !(200...299).contains(status) { problems.append("Success true with HTTP \(status)") }
            if let results = envelope["Results"] {
                if results.array?.allSatisfy({ $0.object != nil }) != true { problems.append("D.Results is not an array of objects") }
            }
            if let pagination = envelope["Pagination"] {
                for member in paginationMembers where (pagination[member]?.int).map({ $0 >= 0 }) != true {
                    problems.append("D.Pagination.\(member) is missing or not a whole number")
                }
            }
        } else {
            guard let code = envelope["Code"]?.int else { return ["a failure without a whole-number D.Code"] }
            if envelope["Message"]?.string == nil { problems.append("a failure without a D.Message string") }
            if let expected = statusOfCode[code], expected != status {
                problems.append("code \(code) with HTTP \(status); Spark's error table gives \(expected)")
            }
            if !(400...599).contains(status) { problems.append("a failure with HTTP \(status)") }
            for member in ["Errors", "SparkQLErrors"] where envelope[member] != nil && envelope[member]?.array == nil {
                problems.append("D.\(member) is not an array")
            }
        }
        return problems
    }
}

/// A transport that checks every answer of the Spark API against ``SparkEnvelopeSchema`` and
/// records a test issue for each violation: a stand-in answer that leaves Spark's envelope fails
/// the test that relied on it. The grant endpoint's OAuth-shaped answers (Spark documents no
/// envelope for them) are left alone; its envelopes are checked.
struct SparkSchemaCheckingTransport: HTTPTransport {
    let base: any HTTPTransport
    /// The API's origin and path prefix (`http://127.0.0.1:PORT/v1`).
    let apiURL: String

    func send(_ request: HTTPRequest, uploadProgress: (@Sendable (Int64, Int64) -> Void)?) async throws(HTTPClientError) -> HTTPResponse {
        let response = try await base.send(request, uploadProgress: uploadProgress)
        guard request.url.hasPrefix(apiURL) else { return response }
        let isGrant = request.url.hasPrefix(apiURL + "/oauth2/grant")
        if isGrant, (try? JSON(parsing: response.body))?["D"] == nil { return response }
        for problem in SparkEnvelopeSchema.violations(status: response.status, body: response.body) {
            Issue.record("the Spark stand-in's answer to \(request.method) \(RedactedURL.describe(request.url)) leaves the D envelope (\(SparkEnvelopeSchema.source)): \(problem)")
        }
        return response
    }
}

/// The schema checks themselves: they pass Spark's documented shapes and catch the rest.
@Suite("Spark's D envelope (test data)")
struct SparkEnvelopeSchemaTests {
    static func check(_ status: Int, _ text: String) -> [String] {
        SparkEnvelopeSchema.violations(status: status, body: Array(text.utf8))
    }

    @Test("documented answers pass: results, pagination, failures with their table status")
    func documented() {
        #expect(Self.check(200, #"{"D": {"Success": true, "Results": [{"Id": "1"}]}}"#).isEmpty)
        #expect(Self.check(200, #"{"D": {"Success": true, "Results": [], "Pagination": {"TotalRows": 3, "PageSize": 1, "TotalPages": 3, "CurrentPage": 1}}}"#).isEmpty)
        #expect(Self.check(201, #"{"D": {"Success": true, "Results": [{"ResourceUri": "/v1/contacts/1", "Id": "1"}]}}"#).isEmpty)
        #expect(Self.check(503, #"{"D": {"Success": false, "Code": 1550, "Message": "Over rate limit"}}"#).isEmpty)
        #expect(Self.check(401, #"{"D": {"Success": false, "Code": 1020, "Message": "Session token has expired"}}"#).isEmpty)
        #expect(Self.check(400, #"{"D": {"Success": false, "Code": 1040, "Message": "bad", "SparkQLErrors": [{}]}}"#).isEmpty)
        #expect(Self.check(204, "").isEmpty)
    }

    @Test("answers off the envelope are caught")
    func violations() {
        #expect(Self.check(429, #"{"D": {"Success": false, "Code": 1550, "Message": "Over rate limit"}}"#)
                == ["code 1550 with HTTP 429; Spark's error table gives 503"])
        #expect(Self.check(200, #"{"Success": true}"#).count == 1)
        #expect(Self.check(200, #"{"D": {"Results": []}}"#) == ["D.Success is missing or not a boolean"])
        #expect(Self.check(200, #"{"D": {"Success": true, "Results": {"Id": "1"}}}"#) == ["D.Results is not an array of objects"])
        #expect(Self.check(200, #"{"D": {"Success": true, "Pagination": {"TotalRows": 3}}}"#).count == 3)
        #expect(Self.check(400, #"{"D": {"Success": false, "Message": "no code"}}"#) == ["a failure without a whole-number D.Code"])
        #expect(Self.check(500, "<html>oops</html>") == ["the body is not a JSON object"])
        #expect(Self.check(404, "") == ["HTTP 404 with an empty body"])
    }
}
