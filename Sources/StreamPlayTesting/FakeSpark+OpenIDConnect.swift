import Crypto
import FoundationEssentials
import StreamPlay
import StreamPlayServices
import Synchronization
import _CryptoExtras

/// Spark's OpenID Connect provider in memory (`sparkplatform.com`): the discovery document,
/// the key set, the token endpoint (code and refresh, JSON or form bodies, the client's
/// credentials in the body or HTTP Basic) with RS256-signed ID tokens, and RFC 7009
/// revocation. The tokens it issues are the API's, as Spark's are.
extension FakeSpark {
    /// The provider's host (`sparkplatform.com`).
    public static let authHost = "sparkplatform.com"
    /// The issuer its ID tokens name.
    public static let issuer = "https://sparkplatform.com"
    /// The `sub` of the default user's ID tokens: the account's `Id`.
    public static let accountID = "20000426173054342350000000"

    /// A way to spoil the ID tokens the fake issues from now on, for tests of their checks.
    public enum IDTokenFault: Sendable, Equatable {
        /// Signed with a key that is not in the key set, under the set's key id.
        case wrongKey
        /// Another issuer.
        case wrongIssuer
        /// Another audience.
        case wrongAudience
        /// Expired an hour ago.
        case expired
        /// Another nonce.
        case wrongNonce
        /// Another subject (`sub`): a token for someone else.
        case wrongSubject
        /// No `id_token` in the token answer.
        case missing
    }

    /// What the provider's state holds.
    struct OpenIDState: Sendable {
        var nonces: [String: String] = [:]
        var fault: IDTokenFault?
        var revocationFailure: Int?
        var revoked: [String] = []
    }

    /// The user approves an OpenID Connect `request`: the redirect URL the browser would be
    /// sent to, with a code bound to the request's redirect URI and nonce.
    public func authorize(_ request: SparkOpenIDConnectRequest, user: String = FakeSpark.defaultUser) -> String {
        let redirect = FakeOAuth.approve(request.url, user: user, authority: tokenAuthority, bindsChallenge: false)
        if let code = URLParts(redirect)?.query.first(where: { $0.name == "code" })?.value {
            openID.withEngineLock { $0.nonces[code] = request.nonce }
        }
        return redirect
    }

    /// Spoils the ID tokens issued from now on (nil: sound tokens again).
    public func spoilIDTokens(_ fault: IDTokenFault?) {
        openID.withEngineLock { $0.fault = fault }
    }

    /// Answers revocation requests with `status` from now on (nil: 200 again).
    public func failRevocation(status: Int?) {
        openID.withEngineLock { $0.revocationFailure = status }
    }

    /// The token type hints of the tokens revoked so far, in order (`refresh_token`,
    /// `access_token`).
    public var revocations: [String] {
        openID.withEngineLock { $0.revoked }
    }

    func installOpenIDRoutes() {
        transport.route(.get, host: Self.authHost, path: "/.well-known/openid-configuration") { request in
            .json(Self.discoveryDocument, for: request)
        }
        transport.route(.get, host: Self.authHost, path: "/openid/jwks.json") { request in
            .json(["keys": [Self.jwk(Self.signingKey.publicKey, id: Self.keyID)]], for: request)
        }
        route(.post, host: Self.authHost, path: "/openid/token") { fake, request in fake.openIDToken(request) }
        route(.post, host: Self.authHost, path: "/openid/revoke") { fake, request in fake.revoke(request) }
    }

    // MARK: Endpoints

    private func openIDToken(_ request: RecordedRequest) -> HTTPResponse {
        var fields = FakeOAuth.fields(of: request)
        if request.contentType?.hasPrefix("application/json") == true, let body = (try? JSON(parsing: request.bodyBytes))?.object {
            for (name, value) in body { if let text = value.string { fields[name] = text } }
        }
        let client = FakeOAuth.client(of: request, fields: fields)
        guard client.id == Self.clientID, client.secret == Self.clientSecret else {
            return FakeOAuth.error("invalid_client", "client authentication failed", status: 401, for: request)
        }
        let grantType = fields["grant_type"] ?? ""
        let grant: FakeTokenAuthority.Grant
        var nonce: String?
        do throws(FakeTokenAuthority.Refusal) {
            switch grantType {
            case "authorization_code":
                let code = fields["code"] ?? ""
                grant = try tokenAuthority.redeem(code: code, redirectURI: fields["redirect_uri"], verifier: nil)
                nonce = openID.withEngineLock { $0.nonces.removeValue(forKey: code) }
            case "refresh_token":
                grant = try tokenAuthority.useRefreshToken(fields["refresh_token"] ?? "", rotates: true)
            default:
                return FakeOAuth.error("unsupported_grant_type", "grant_type must be authorization_code or refresh_token", for: request)
            }
        } catch {
            return FakeOAuth.error(error.error, error.description, for: request)
        }
        let issued = tokenAuthority.issue(grant, grantType: grantType, withRefreshToken: true)
        var object: [String: JSON] = ["access_token": .string(issued.access), "token_type": "Bearer",
                                      "expires_in": FakeOAuth.number(Self.tokenLifetime)]
        if let refresh = issued.refresh { object["refresh_token"] = .string(refresh) }
        let fault = openID.withEngineLock { $0.fault }
        if fault != .missing { object["id_token"] = .string(idToken(for: grant.user ?? Self.defaultUser, nonce: nonce, fault: fault)) }
        return .json(.object(object), for: request)
    }

    private func revoke(_ request: RecordedRequest) -> HTTPResponse {
        let fields = FakeOAuth.fields(of: request)
        let client = FakeOAuth.client(of: request, fields: fields)
        guard client.id == Self.clientID, client.secret == Self.clientSecret else {
            return FakeOAuth.error("invalid_client", "client authentication failed", status: 401, for: request)
        }
        if let status = openID.withEngineLock({ $0.revocationFailure }) {
            return FakeOAuth.error("temporarily_unavailable", "revocation failed", status: status, for: request)
        }
        guard let token = fields["token"] else { return FakeOAuth.error("invalid_request", "token is required", for: request) }
        tokenAuthority.revoke(accessToken: token)
        _ = try? tokenAuthority.useRefreshToken(token, rotates: true)  // a refresh token is dead once used
        openID.withEngineLock { $0.revoked.append(fields["token_type_hint"] ?? "") }
        return HTTPResponse(status: 200, headers: [:], body: [], url: request.url)
    }

    // MARK: ID tokens

    /// A signed ID token for `user`.
    private func idToken(for user: String, nonce: String?, fault: IDTokenFault?) -> String {
        let now = Date().timeIntervalSince1970
        var claims: [String: JSON] = [
            "iss": .string(fault == .wrongIssuer ? "https://evil.example" : Self.issuer),
            "sub": .string(fault == .wrongSubject ? "spark-someone-else" : user == Self.defaultUser ? Self.accountID : "spark-\(user)"),
            "aud": .string(fault == .wrongAudience ? "another-client" : Self.clientID),
            "exp": .number((now + (fault == .expired ? -3600 : 3600)).rounded()),
            "iat": .number(now.rounded()),
            "name": .string(user == Self.defaultUser ? "StreamPlay Tester" : user),
            "email": .string("\(user)@example.com"),
        ]
        if let nonce { claims["nonce"] = .string(fault == .wrongNonce ? "another-nonce" : nonce) }
        return Self.sign(claims: .object(claims), key: fault == .wrongKey ? Self.strangerKey : Self.signingKey, keyID: Self.keyID)
    }

    /// `claims` as a compact RS256 JWS signed with `key`, naming `keyID`.
    public static func sign(claims: JSON, key: _RSA.Signing.PrivateKey, keyID: String?) -> String {
        var header: [String: JSON] = ["alg": "RS256", "typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        let input = base64URL(JSON.object(header).encoded()) + "." + base64URL(claims.encoded())
        let signature = (try? key.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5))?.rawRepresentation ?? Data()
        return input + "." + base64URL(Array(signature))
    }

    /// The JWK of `key`: `{"kty": "RSA", "use": "sig", "alg": "RS256", "kid", "n", "e"}`.
    public static func jwk(_ key: _RSA.Signing.PublicKey, id: String?) -> JSON {
        guard let primitives = try? key.getKeyPrimitives() else { return [:] }
        var object: [String: JSON] = ["kty": "RSA", "use": "sig", "alg": "RS256",
                                      "n": .string(base64URL(Array(primitives.modulus))),
                                      "e": .string(base64URL(Array(primitives.publicExponent)))]
        if let id { object["kid"] = .string(id) }
        return .object(object)
    }

    /// Unpadded base64url (RFC 4648 §5), as JWTs and JWKs use.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }

    /// The discovery document, shaped as Spark's (its members and values, with the fake's URLs).
    public static var discoveryDocument: JSON {
        [
            "issuer": .string(issuer), "jwks_uri": "https://sparkplatform.com/openid/jwks.json",
            "response_types_supported": ["id_token", "id_token token", "code", "id_token code token", "id_token code", "code token"],
            "subject_types_supported": ["public", "pairwise"], "id_token_signing_alg_values_supported": ["RS256"],
            "authorization_endpoint": "https://sparkplatform.com/openid/authorize",
            "token_endpoint": "https://sparkplatform.com/openid/token",
            "userinfo_endpoint": "https://sparkplatform.com/openid/userinfo",
            "scopes_supported": ["openid", "profile", "email", "address", "phone", "RESO", "FBS"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "claims_parameter_supported": true, "revocation_endpoint": "https://sparkplatform.com/openid/revoke",
        ]
    }

    static let keyID = "fake-spark-key-1"
    /// The provider's signing key, made once per process (RSA key generation is slow).
    static let signingKey = makeKey()
    /// A key outside the key set.
    static let strangerKey = makeKey()

    private static func makeKey() -> _RSA.Signing.PrivateKey {
        try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }
}
