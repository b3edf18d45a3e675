import FoundationEssentials

/// Why an OpenID Connect ID token (or the provider's key set) was refused. No case carries the
/// token or a signature.
public enum IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JWS in compact form (three base64url parts, a JSON header and claims).
    case malformed(reason: String)
    /// The header names an algorithm other than RS256 (`none` included): refused.
    case unsupportedAlgorithm(String)
    /// No key of the provider's set has the token's key id (`kid`).
    case unknownKey(keyID: String?)
    /// The provider's key set could not be read.
    case invalidKeySet(reason: String)
    /// The signature does not verify with the provider's key: forged or altered.
    case badSignature
    /// `iss` is not the provider's issuer.
    case wrongIssuer(expected: String, found: String?)
    /// `aud` does not name this client (or, with several audiences, `azp` is not this client).
    case wrongAudience(expected: String, found: [String])
    /// `exp` has passed (with the allowed clock skew).
    case expired(at: Date)
    /// `nonce` is not the one this sign-in sent (a replayed or injected token).
    case nonceMismatch
    /// A claim OpenID Connect requires is missing or of the wrong type.
    case missingClaim(String)
    /// An ID token that came with a refresh names another `iss`, `sub` or `aud` than the
    /// sign-in's (OpenID Connect Core 1.0 §12.2 requires them to be the same): `claim` says which.
    case refreshMismatch(claim: String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .malformed(let reason): "malformed ID token: \(reason)"
        case .unsupportedAlgorithm(let algorithm): "ID token signed with \(algorithm), not RS256"
        case .unknownKey(let keyID): "no key \(keyID ?? "(no kid)") in the provider's key set"
        case .invalidKeySet(let reason): "invalid key set: \(reason)"
        case .badSignature: "the ID token's signature does not verify"
        case .wrongIssuer(let expected, let found): "ID token issuer \(found ?? "(none)") is not \(expected)"
        case .wrongAudience(let expected, let found): "ID token audience \(found.joined(separator: ",")) does not name \(expected)"
        case .expired(let at): "the ID token expired at \(at)"
        case .nonceMismatch: "the ID token's nonce is not this sign-in's"
        case .missingClaim(let name): "the ID token has no valid \(name) claim"
        case .refreshMismatch(let claim): "the refreshed ID token's \(claim) is not the sign-in's"
        }
    }
}
