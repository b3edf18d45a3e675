import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing

/// Spark answers at the edges of the D envelope (Spark's standard_response_format and
/// error_codes docs, read 2026-11-23): optional members absent, unknown members present, nulls.
@Suite("Spark answers at the D envelope's edges")
struct SparkEnvelopeEdgeTests {
    /// A signed-in client whose `path` answers `body` with `status`.
    static func client(answering body: String, status: Int = 200, path: String = "/v1/my/account") async throws -> SparkClient {
        let fake = FakeSpark()
        fake.transport.route(host: FakeSpark.apiHost, path: path) { request in
            HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8), url: request.url)
        }
        let client = SparkClient(configuration: fake.configuration, http: fake.transport, userAgent: "EdgeTests/1")
        await client.setRetryPolicy(.never)
        let request = client.makeAuthorizationRequest()
        try await client.completeAuthorization(request, redirect: fake.authorize(request))
        return client
    }

    @Test("a success without Results, with unknown members and a null Pagination, is an empty page")
    func sparseSuccess() async throws {
        let client = try await Self.client(answering: #"{"D": {"Success": true, "Pagination": null, "NewMember": {"x": 1}}}"#,
                                           path: "/v1/contacts")
        let response = try await client.apiResponse(.get, "/contacts")
        #expect(response.results.isEmpty && response.pagination == nil && response.status == 200)
    }

    @Test("an account with nulls and unknown members reads; only Id and Name are required")
    func accountEdges() async throws {
        let client = try await Self.client(answering: """
            {"D": {"Success": true, "Results": [{"Id": "20000426173054342350000000", "Name": "Edge Case",
              "FirstName": null, "LastName": null, "Office": null, "Mls": null, "UserType": null,
              "Emails": null, "Phones": null, "SomethingNew": [1, 2, {"deep": true}]}]}}
            """)
        let account = try await client.account()
        #expect(account.name == "Edge Case" && account.firstName == nil && account.primaryEmail == nil)
        #expect(account.json["SomethingNew"]?[2]?["deep"]?.bool == true)
        let nameless = try await Self.client(answering: #"{"D": {"Success": true, "Results": [{"Id": "1", "Name": null}]}}"#)
        await #expect(throws: SparkError.invalidResponse(reason: "the account has no Id or Name", status: 200)) {
            try await nameless.account()
        }
    }

    @Test("a failure with extra members (Errors, SparkQLErrors, unknown ones) is typed by Code and Message")
    func richFailure() async throws {
        let client = try await Self.client(answering: """
            {"D": {"Success": false, "Code": 1040, "Message": "The _filter syntax was invalid",
              "SparkQLErrors": [{"Token": "x", "Status": "Fatal"}], "Errors": [{"Type": "InvalidAttribute"}], "Extra": null}}
            """, status: 400, path: "/v1/listings")
        await #expect(throws: SparkError.api(code: 1040, message: "The _filter syntax was invalid", status: 400)) {
            try await client.get("/listings", parameters: ["_filter": "bad"])
        }
        let bare = try await Self.client(answering: #"{"D": {"Success": false, "Code": null, "Message": null}}"#, status: 500,
                                         path: "/v1/listings")
        await #expect(throws: SparkError.api(code: 500, message: "no message", status: 500)) {
            try await bare.get("/listings")
        }
    }
}
