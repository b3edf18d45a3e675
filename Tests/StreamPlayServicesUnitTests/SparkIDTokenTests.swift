import Crypto
import Foundation
import StreamPlay
import StreamPlayServices
import StreamPlayTesting
import Testing
import _CryptoExtras

/// ID token checks (OpenID Connect Core §3.1.3.7) with keys made here: a sound token passes;
/// each spoiled one fails with its own typed error.
@Suite("OpenID Connect ID tokens and key sets")
struct SparkIDTokenTests {
    static let issuer = "https://sparkplatform.com"
    static let clientID = "spark-test-client"
    static let nonce = "n-0S6_WzA2Mj"
    /// Made once: RSA key generation is slow.
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static var keySet: JSONWebKeySet {
        get throws {
            try JSONWebKeySet(json: ["keys": [
                ["kty": "EC", "crv": "P-256", "kid": "ec", "x": "AA", "y": "AA"],  // not RSA: skipped
                FakeSpark.jwk(key.publicKey, id: "k1"),
            ]])
        }
    }

    static var verifier: IDTokenVerifier {
        get throws { IDTokenVerifier(issuer: issuer, clientID: clientID, keys: try keySet) }
    }

    /// Claims of a sound token, with `changes` applied.
    static func claims(_ changes: [String: JSON?] = [:]) -> JSON {
        let now = Date().timeIntervalSince1970.rounded()
        var claims: [String: JSON] = ["iss": .string(issuer), "sub": "20000426173054342350000000", "aud": .string(clientID),
                                      "exp": .number(now + 600), "iat": .number(now), "nonce": .string(nonce),
                                      "name": "StreamPlay Tester", "MemberMlsId": "12345"]
        for (name, value) in changes { claims[name] = value }
        return .object(claims)
    }

    static func token(_ claims: JSON = claims(), key: _RSA.Signing.PrivateKey = key, keyID: String? = "k1") -> String {
        FakeSpark.sign(claims: claims, key: key, keyID: keyID)
    }

    static func refusal(_ token: String, nonce: String? = nonce) throws -> IDTokenError? {
        do {
            _ = try verifier.verify(token, nonce: nonce)
            return nil
        } catch let error as IDTokenError {
            return error
        }
    }

    @Test("a sound token passes and its claims are read")
    func soundToken() throws {
        let token = try Self.verifier.verify(Self.token(), nonce: Self.nonce)
        #expect(token.issuer == Self.issuer && token.subject == "20000426173054342350000000")
        #expect(token.audience == [Self.clientID] && token.nonce == Self.nonce && token.name == "StreamPlay Tester")
        #expect(token.claims["MemberMlsId"]?.string == "12345" && token.expiresAt > Date())
        // Without a kid, the set's only RSA key is the one.
        #expect(try Self.verifier.verify(Self.token(keyID: nil), nonce: Self.nonce).subject == token.subject)
        // Several audiences are fine when azp names this client.
        let shared = Self.token(Self.claims(["aud": [.string(Self.clientID), "other"], "azp": .string(Self.clientID)]))
        #expect(try Self.verifier.verify(shared, nonce: Self.nonce).audience.count == 2)
    }

    @Test("a wrong signature fails: another key, altered claims, a cut signature")
    func wrongSignature() throws {
        #expect(try Self.refusal(Self.token(key: Self.otherKey)) == .badSignature)
        let parts = Self.token().split(separator: ".").map(String.init)
        let forgedClaims = FakeSpark.sign(claims: Self.claims(["sub": "someone-else"]), key: Self.otherKey, keyID: "k1")
            .split(separator: ".").map(String.init)[1]
        #expect(try Self.refusal([parts[0], forgedClaims, parts[2]].joined(separator: ".")) == .badSignature)
        #expect(try Self.refusal([parts[0], parts[1], String(parts[2].dropLast(8))].joined(separator: ".")) == .badSignature)
    }

    @Test("wrong iss, aud (or azp), nonce, and an expired token each fail with their error")
    func wrongClaims() throws {
        #expect(try Self.refusal(Self.token(Self.claims(["iss": "https://evil.example"])))
                == .wrongIssuer(expected: Self.issuer, found: "https://evil.example"))
        #expect(try Self.refusal(Self.token(Self.claims(["aud": "another-client"])))
                == .wrongAudience(expected: Self.clientID, found: ["another-client"]))
        #expect(try Self.refusal(Self.token(Self.claims(["aud": [.string(Self.clientID), "other"]])))
                == .wrongAudience(expected: Self.clientID, found: [Self.clientID, "other"]), "several audiences need azp")
        #expect(try Self.refusal(Self.token(Self.claims(["nonce": "replayed"]))) == .nonceMismatch)
        #expect(try Self.refusal(Self.token(Self.claims(["nonce": nil]))) == .nonceMismatch, "a nonce was sent: it must come back")
        let past = Date().timeIntervalSince1970.rounded() - 3600
        #expect(try Self.refusal(Self.token(Self.claims(["exp": .number(past)]))) == .expired(at: Date(timeIntervalSince1970: past)))
        // Within the clock skew (2 minutes) a token just expired still passes.
        let moments = Date().timeIntervalSince1970.rounded() - 30
        #expect(try Self.refusal(Self.token(Self.claims(["exp": .number(moments)]))) == nil)
        #expect(try Self.refusal(Self.token(Self.claims(["sub": nil]))) == .missingClaim("sub"))
    }

    @Test("other algorithms, unknown keys and malformed tokens are refused")
    func algorithmsAndForm() throws {
        let parts = Self.token().split(separator: ".").map(String.init)
        let none = FakeSpark.base64URL(Array(#"{"alg":"none","kid":"k1"}"#.utf8))
        #expect(try Self.refusal([none, parts[1], ""].joined(separator: ".")) == .unsupportedAlgorithm("none"))
        let hmac = FakeSpark.base64URL(Array(#"{"alg":"HS256","kid":"k1"}"#.utf8))
        #expect(try Self.refusal([hmac, parts[1], parts[2]].joined(separator: ".")) == .unsupportedAlgorithm("HS256"))
        #expect(try Self.refusal(Self.token(keyID: "rotated")) == .unknownKey(keyID: "rotated"))
        #expect(try Self.refusal("not.a-token") == .malformed(reason: "2 parts, not 3"))
        guard case .malformed? = try Self.refusal("%%%.\(parts[1]).\(parts[2])") else {
            Issue.record("a header that is no base64url is malformed")
            return
        }
    }

    @Test("key sets: RSA signing keys by kid; small keys and unreadable ones refused")
    func keySets() throws {
        #expect(try Self.keySet.keyIDs == ["k1"])
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(throws: IDTokenError.self) { try JSONWebKeySet(json: ["keys": [FakeSpark.jwk(small.publicKey, id: "small")]]) }
        #expect(throws: IDTokenError.invalidKeySet(reason: "an RSA key without a readable n or e")) {
            try JSONWebKeySet(json: ["keys": [["kty": "RSA", "kid": "x", "n": "!!", "e": "AQAB"]]])
        }
        #expect(throws: IDTokenError.invalidKeySet(reason: "no \"keys\" array")) { try JSONWebKeySet(json: ["key": []]) }
        // An encryption key is not a signing key.
        var encryption = FakeSpark.jwk(Self.otherKey.publicKey, id: "enc").object ?? [:]
        encryption["use"] = "enc"
        #expect(try JSONWebKeySet(json: ["keys": [.object(encryption)]]).keyIDs.isEmpty)
    }

    @Test("discovery: the issuer must be the document's own; RS256 and the code flow required")
    func discovery() throws {
        let url = "https://sparkplatform.com/.well-known/openid-configuration"
        var document = FakeSpark.discoveryDocument.object ?? [:]
        let provider = try OpenIDProviderMetadata(json: .object(document), discoveryURL: url)
        #expect(provider.tokenEndpoint == "https://sparkplatform.com/openid/token")
        #expect(provider.revocationEndpoint == "https://sparkplatform.com/openid/revoke" && provider.scopesSupported.contains("openid"))
        #expect(throws: SparkError.self) { try OpenIDProviderMetadata(json: .object(document), discoveryURL: "https://evil.example/.well-known/openid-configuration") }
        document["id_token_signing_alg_values_supported"] = ["HS256"]
        #expect(throws: SparkError.discovery(reason: "the provider does not sign ID tokens with RS256")) {
            try OpenIDProviderMetadata(json: .object(document), discoveryURL: url)
        }
        document["token_endpoint"] = nil
        #expect(throws: SparkError.discovery(reason: "no valid token_endpoint in the discovery document")) {
            try OpenIDProviderMetadata(json: .object(document), discoveryURL: url)
        }
    }
}
