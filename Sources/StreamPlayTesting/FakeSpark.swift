import StreamPlay
import StreamPlayServices
import Synchronization

/// Spark (FBS) in memory: the platform's OpenID Connect provider (discovery, key set, token
/// endpoint with signed ID tokens, revocation; ``IDTokenFault`` spoils its tokens), its plain
/// OAuth 2 sign-in and the API at `sparkapi.com/v1`, as routes of an ``InMemoryHTTPTransport``, answering with Spark's
/// `{"D": {...}}` envelopes as its documentation and the project's stand-in servers do.
///
/// ```swift
/// let spark = FakeSpark()
/// let client = SparkClient(configuration: spark.configuration, http: spark.transport)
/// let request = client.makeAuthorizationRequest()
/// try await client.completeAuthorization(request, redirect: spark.authorize(request))
/// let account = try await client.account()
/// ```
///
/// - Every request needs `X-SparkApi-User-Agent` (else 400, code 1016).
/// - `POST /v1/oauth2/grant`, a JSON body with the client id and secret: authorization code
///   (get one with ``FakeOAuthService/authorize(_:user:)``) and refresh (single-use refresh tokens: rotation).
/// - API calls carry `Authorization: OAuth TOKEN` (Bearer is accepted too); an unknown token is
///   401 code 1000, an expired one (see ``FakeOAuthService/expireAccessTokens()``) 401 code
///   1020 (renew the session, then replay).
/// - `GET /v1/my/account`; `GET /v1/contacts`; `POST /v1/contacts` (`{"D": {attributes}}` or
///   `{"D": {"Contacts": [...]}}`, `DisplayName` and `PrimaryEmail` required: 201).
public final class FakeSpark: FakeOAuthService {
    /// The Spark platform.
    public static let service = StreamingService.spark
    /// The client id the fake accepts.
    public static let clientID = "spark-test-client"
    /// The client secret the fake accepts.
    public static let clientSecret = "spark-test-secret"
    /// The API host.
    public static let apiHost = "sparkapi.com"
    /// The user a sign-in is for unless told otherwise.
    public static let defaultUser = "streamplay-tester"
    /// `expires_in` of the tokens (Spark's sessions last a day).
    public static let tokenLifetime = 86400
    /// False: Spark's plain OAuth 2 sign-in has no PKCE, so its codes are bound to the redirect
    /// URI only.
    public static let bindsPKCEChallenge = false

    /// The transport the fake answers on.
    public let transport: InMemoryHTTPTransport
    /// The fake's codes and tokens (the OpenID Connect provider's too: its tokens are the API's).
    public let tokenAuthority = FakeTokenAuthority(prefix: "spark")
    let contacts: Mutex<[JSON]>
    /// The OpenID Connect provider's nonces, faults and revocations.
    let openID = Mutex(OpenIDState())

    /// The fake, its routes added to `transport`; one contact to begin with ("Jane Client").
    public init(transport: InMemoryHTTPTransport = InMemoryHTTPTransport()) {
        self.transport = transport
        contacts = Mutex([Self.contact(id: "20110101000000000000000001", attributes: [
            "DisplayName": "Jane Client", "GivenName": "Jane", "FamilyName": "Client",
            "PrimaryEmail": "jane.client@example.com", "Tags": ["Buyer"],
        ])])
        installRoutes()
        installOpenIDRoutes()
    }

    /// Answers the next `count` API requests whose path starts with `pathPrefix` with `status`
    /// and Spark's failed envelope carrying `code` (1550 "Over rate limit" with 503, as Spark's error table has it, say).
    public func failNext(_ count: Int = 1, status: Int, code: Int, message: String, retryAfter: Double? = nil,
                         pathPrefix: String = "/v1/") {
        failAPIRequests(count, status: status, retryAfter: retryAfter, pathPrefix: pathPrefix,
                        body: Self.envelope(code: code, message: message))
    }

    /// The contacts the fake holds, oldest first.
    public var storedContacts: [JSON] {
        contacts.withEngineLock { $0 }
    }

    /// A failed envelope: `{"D": {"Success": false, "Code": N, "Message": M}}`.
    static func envelope(code: Int, message: String) -> JSON {
        ["D": ["Success": false, "Code": FakeOAuth.number(code), "Message": .string(message)]]
    }

    /// A contact with `id` and `attributes`.
    static func contact(id: String, attributes: [String: JSON]) -> JSON {
        var object = attributes
        object["Id"] = .string(id)
        object["ResourceUri"] = .string("/v1/contacts/\(id)")
        object["ModificationTimestamp"] = "2026-01-01T00:00:00Z"
        return .object(object)
    }
}
