import Crypto
import FoundationEssentials
import _CryptoExtras

/// A verified OpenID Connect ID token: its claims, after ``IDTokenVerifier`` checked the
/// signature, issuer, audience, expiry and nonce (OpenID Connect Core 1.0 §3.1.3.7).
public struct IDToken: Sendable, Equatable {
    /// `iss`: the provider (`https://sparkplatform.com`).
    public let issuer: String
    /// `sub`: the user's identifier at the provider; with ``issuer``, who signed in.
    public let subject: String
    /// `aud`: the clients the token is for (this client among them).
    public let audience: [String]
    /// `exp`.
    public let expiresAt: Date
    /// `iat`, if present.
    public let issuedAt: Date?
    /// `nonce`, if present.
    public let nonce: String?
    /// `name`, if the provider sent it (scope `profile`).
    public var name: String? { claims["name"]?.string }
    /// `email`, if the provider sent it (scope `email`).
    public var email: String? { claims["email"]?.string }
    /// Every claim, for those not modelled here (Spark's `MemberMlsId`, ...).
    public let claims: JSON

    /// Reads the claims of a token whose signature was checked; the claims' checks are the
    /// verifier's.
    /// - Throws: ``IDTokenError/missingClaim(_:)`` for a missing `iss`, `sub`, `aud` or `exp`.
    init(claims: JSON) throws(IDTokenError) {
        guard let issuer = claims["iss"]?.string else { throw .missingClaim("iss") }
        guard let subject = claims["sub"]?.string, !subject.isEmpty else { throw .missingClaim("sub") }
        let audience = claims["aud"]?.string.map { [$0] } ?? claims["aud"]?.array?.compactMap(\.string) ?? []
        guard !audience.isEmpty else { throw .missingClaim("aud") }
        guard let expiry = claims["exp"]?.double, expiry.isFinite else { throw .missingClaim("exp") }
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        expiresAt = Date(timeIntervalSince1970: expiry)
        issuedAt = claims["iat"]?.double.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil }
        nonce = claims["nonce"]?.string
        self.claims = claims
    }

    /// The claims of a compact JWS, without any check: for a token this client verified before
    /// and kept in its encrypted store.
    static func unverifiedClaims(of token: String) -> JSON? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSON(parsing: bytes)
    }
}

/// Checks ID tokens of one provider for one client: an RS256 signature by a key of the
/// provider's ``JSONWebKeySet``, then `iss`, `aud` (and `azp`), `exp` and `nonce`.
public struct IDTokenVerifier: Sendable {
    /// The provider's issuer, exactly as its discovery document names it.
    public var issuer: String
    /// This client's id: the audience the token must name.
    public var clientID: String
    /// The provider's signing keys.
    public var keys: JSONWebKeySet
    /// Seconds of clock difference tolerated on `exp` (2 minutes by default).
    public var clockSkew: Double

    /// A verifier.
    public init(issuer: String, clientID: String, keys: JSONWebKeySet, clockSkew: Double = 120) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
        self.clockSkew = clockSkew
    }

    /// Verifies `token` (a compact JWS) and returns its claims.
    /// - Parameters:
    ///   - token: the `id_token` of a token response.
    ///   - nonce: the nonce the authorization request sent; nil when none was sent.
    ///   - now: the time to check `exp` against.
    /// - Throws: an ``IDTokenError`` for the first check that fails, the signature's first.
    public func verify(_ token: String, nonce: String?, now: Date = Date()) throws(IDTokenError) -> IDToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw .malformed(reason: "\(parts.count) parts, not 3") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = try? JSON(parsing: headerBytes), header.object != nil else {
            throw .malformed(reason: "the header is not base64url JSON")
        }
        guard let algorithm = header["alg"]?.string else { throw .malformed(reason: "the header names no alg") }
        guard algorithm == "RS256" else { throw .unsupportedAlgorithm(algorithm) }
        let keyID = header["kid"]?.string
        guard let key = keys.key(for: keyID), key.algorithm ?? "RS256" == "RS256" else { throw .unknownKey(keyID: keyID) }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            throw .malformed(reason: "the signature is not base64url")
        }
        let digest = SHA256.hash(data: Array((parts[0] + "." + parts[1]).utf8))
        guard key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                             padding: .insecurePKCS1v1_5) else {
            throw .badSignature
        }
        guard let claimBytes = Base64URL.decode(parts[1]), let claims = try? JSON(parsing: claimBytes), claims.object != nil else {
            throw .malformed(reason: "the claims are not base64url JSON")
        }
        let token = try IDToken(claims: claims)
        guard token.issuer == issuer else { throw .wrongIssuer(expected: issuer, found: token.issuer) }
        // §3.1.3.7 (3) and (4): this client among the audiences; with several, azp names it.
        guard token.audience.contains(clientID),
              token.audience.count == 1 || claims["azp"]?.string == clientID else {
            throw .wrongAudience(expected: clientID, found: token.audience)
        }
        guard token.expiresAt.timeIntervalSince(now) > -clockSkew else { throw .expired(at: token.expiresAt) }
        if let nonce, token.nonce != nonce { throw .nonceMismatch }
        return token
    }
}
