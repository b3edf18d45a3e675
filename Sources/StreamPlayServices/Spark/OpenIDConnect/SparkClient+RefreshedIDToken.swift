import Logging
import StreamPlay
import Synchronization

extension SparkClient {
    /// Checks the ID token that came with a refresh of `previous`, as OpenID Connect Core 1.0
    /// §12.2 says: the signature against the provider's keys, `iss`, `aud` (and `azp`) and
    /// `exp` as at sign-in, no `nonce` check (a refresh has none), and `iss`, `sub` and `aud`
    /// the same as the sign-in's ID token. ``oauth`` calls it before it keeps the refreshed
    /// tokens: nil lets them be kept with this ID token; an error ends the session
    /// (``SparkError/idToken(_:)`` to the caller).
    /// - Returns: nil when the token holds, else the first check that failed. A session signed
    ///   in without OpenID Connect (Hybrid, OAuth 2) has no sign-in token to compare with: a
    ///   token is then checked only against the provider.
    func checkRefreshedIDToken(_ raw: String, previous: OAuth2Token) async -> IDTokenError? {
        let refreshed: IDToken
        do throws(SparkError) {
            refreshed = try await verify(raw, nonce: nil, provider: try await openIDProvider())
        } catch {
            logger.error("Spark refresh: ID token refused", metadata: ["error": "\(error)"])
            if case .idToken(let refusal) = error { return refusal }
            // No key set or discovery document: the token cannot be proven.
            return .invalidKeySet(reason: error.description)
        }
        guard let original = previous.idToken.flatMap(IDToken.unverifiedClaims(of:)).flatMap({ try? IDToken(claims: $0) }) else {
            return nil
        }
        let mismatch: String? = if refreshed.issuer != original.issuer {
            "iss"
        } else if refreshed.subject != original.subject {
            "sub"
        } else if Set(refreshed.audience) != Set(original.audience) {
            "aud"
        } else {
            nil
        }
        if let mismatch {
            logger.error("Spark refresh: ID token for another sign-in", metadata: ["claim": "\(mismatch)"])
            return .refreshMismatch(claim: mismatch)
        }
        return nil
    }
}

/// A reference to a ``SparkClient`` that does not keep it alive: its ``OAuth2Client`` calls
/// back through one, and the client owns that OAuth2Client. Set once, in the client's
/// initializer, and read under a lock.
final class WeakSparkClient: Sendable {
    private struct Reference: Sendable {
        weak var client: SparkClient?
    }

    private let reference = Mutex(Reference())

    /// The client, while it exists.
    var client: SparkClient? {
        get { reference.withEngineLock { $0.client } }
        set { reference.withEngineLock { $0.client = newValue } }
    }
}
