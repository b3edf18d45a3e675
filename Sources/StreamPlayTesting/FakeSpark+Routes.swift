import StreamPlay
import StreamPlayServices

extension FakeSpark {
    func installRoutes() {
        route(host: Self.apiHost, pathPrefix: "/") { fake, request in
            guard request.headers["X-SparkApi-User-Agent"] != nil else {
                return Self.failure(400, 1016, "The X-SparkApi-User-Agent request header is required.", for: request)
            }
            if request.path == "/v1/oauth2/grant" { return fake.grant(request) }
            switch fake.tokenAuthority.check(request.authorizationScheme == "OAuth" || request.authorizationScheme == "Bearer"
                ? request.authorizationCredentials : nil) {
            case .valid(let grant): return fake.api(request, user: grant.user ?? Self.defaultUser)
            case .expired: return Self.failure(401, 1020, "Session token has expired", for: request)
            case .unknown: return Self.failure(401, 1000, "Invalid API key and/or request signed improperly", for: request)
            }
        }
    }

    // MARK: Grant

    private func grant(_ request: RecordedRequest) -> HTTPResponse {
        guard request.method == .post else { return Self.failure(405, 405, "Method not allowed", for: request) }
        guard request.contentType?.hasPrefix("application/json") == true, let body = try? JSON(parsing: request.bodyBytes),
              body.object != nil else {
            return Self.failure(400, 1035, "POST data not supplied as valid JSON.", for: request)
        }
        guard body["client_id"]?.string == Self.clientID, body["client_secret"]?.string == Self.clientSecret else {
            return FakeOAuth.error("invalid_client", "client_id or client_secret is wrong", status: 401, for: request)
        }
        guard let redirectURI = body["redirect_uri"]?.string else {
            return FakeOAuth.error("invalid_request", "redirect_uri is required", for: request)
        }
        let grantType = body["grant_type"]?.string ?? ""
        let grant: FakeTokenAuthority.Grant
        do throws(FakeTokenAuthority.Refusal) {
            switch grantType {
            case "authorization_code":
                guard let code = body["code"]?.string else { return FakeOAuth.error("invalid_request", "code is required", for: request) }
                grant = try tokenAuthority.redeem(code: code, redirectURI: redirectURI, verifier: nil)
            case "refresh_token":
                guard let refresh = body["refresh_token"]?.string else {
                    return FakeOAuth.error("invalid_request", "refresh_token is required", for: request)
                }
                grant = try tokenAuthority.useRefreshToken(refresh, rotates: true)
            default:
                return FakeOAuth.error("unsupported_grant_type", "grant_type must be authorization_code or refresh_token", for: request)
            }
        } catch {
            return FakeOAuth.error(error.error, error.description, for: request)
        }
        let issued = tokenAuthority.issue(grant, grantType: grantType, withRefreshToken: true)
        return FakeOAuth.token(access: issued.access, refresh: issued.refresh, expiresIn: Self.tokenLifetime,
                               tokenType: "Bearer", scope: nil, for: request)
    }

    // MARK: API

    private func api(_ request: RecordedRequest, user: String) -> HTTPResponse {
        switch (request.method, request.path) {
        case (.get, "/v1/my/account"):
            return Self.success([account(user)], for: request)
        case (.get, "/v1/contacts"):
            return Self.success(storedContacts, for: request)
        case (.post, "/v1/contacts"):
            return addContacts(request)
        case (_, "/v1/my/account"), (_, "/v1/contacts"):
            return Self.failure(405, 405, "Method not allowed", for: request)
        default:
            return Self.failure(404, 404, "Not Found", for: request)
        }
    }

    private func addContacts(_ request: RecordedRequest) -> HTTPResponse {
        guard request.contentType?.hasPrefix("application/json") == true, let body = try? JSON(parsing: request.bodyBytes),
              let data = body["D"], data.object != nil else {
            return Self.failure(400, 1035, "POST data not supplied as valid JSON.", for: request)
        }
        let list = data["Contacts"]?.array ?? [data]
        var created: [JSON] = []
        var results: [JSON] = []
        for (offset, item) in list.enumerated() {
            guard var attributes = item.object, attributes["DisplayName"]?.string != nil, attributes["PrimaryEmail"]?.string != nil else {
                return Self.failure(400, 1050, "DisplayName and PrimaryEmail are required", for: request)
            }
            attributes["Id"] = nil
            let serial = String(storedContacts.count + offset + 1)
            let id = "20110101" + String(repeating: "0", count: max(0, 18 - serial.count)) + serial
            created.append(Self.contact(id: id, attributes: attributes))
            results.append(["ResourceUri": .string("/v1/contacts/\(id)"), "Id": .string(id)])
        }
        contacts.withEngineLock { $0 += created }
        return .json(["D": ["Success": true, "Results": .array(results)]], status: 201, for: request)
    }

    private func account(_ user: String) -> JSON {
        [
            "Id": "20000426173054342350000000", "ResourceUri": "/v1/my/account", "UserType": "Member",
            "Name": .string(user == Self.defaultUser ? "StreamPlay Tester" : user), "FirstName": "StreamPlay",
            "LastName": "Tester", "Office": "Test Office", "OfficeId": "20000426173054342350000001",
            "Mls": "Test MLS", "MlsId": "20000426173054342350000002",
            "Emails": [["Type": "Work", "Name": "Work", "Address": .string("\(user)@example.com"), "Primary": true]],
            "Phones": [["Type": "Mobile", "Name": "Mobile", "Number": "701-555-0100", "Primary": true]],
            "Websites": [], "Addresses": [],
        ]
    }

    /// A successful envelope with `results`.
    static func success(_ results: [JSON], for request: RecordedRequest) -> HTTPResponse {
        .json(["D": ["Success": true, "Results": .array(results)]], for: request)
    }

    /// A failed envelope with `status`.
    static func failure(_ status: Int, _ code: Int, _ message: String, for request: RecordedRequest) -> HTTPResponse {
        .json(envelope(code: code, message: message), status: status, for: request)
    }
}
