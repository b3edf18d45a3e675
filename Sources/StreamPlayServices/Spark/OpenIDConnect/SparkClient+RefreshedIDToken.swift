import Logging
import StreamPlay
import Synchronization

extension SparkClient {
    /// Checks the ID token that came with a refresh of `previous`, as OpenID Connect Core 1.0
    /// §12.2 says: the signature against the provider's keys, `iss`, `aud` (and `azp`) and
    /// `exp` as at sign-in, no `nonce` check (a refresh has none), and `iss`, `sub` and `aud`
    /// the same as the sign-in's ID token. ``oauth`` calls it before it keeps the refreshed
    /// tokens.
    /// - Returns: ``RefreshedIDTokenVerdict/keep`` when the token holds;
    ///   ``RefreshedIDTokenVerdict/refuse(_:)`` with the first check that failed (the session
    ///   ends: ``SparkError/idToken(_:)`` to the caller); ``RefreshedIDTokenVerdict/drop`` when
    ///   the discovery document or key set cannot be had now (a network failure must not end
    ///   the session: the sign-in's token stays). A session signed in without OpenID Connect
    ///   (Hybrid, OAuth 2) has no sign-in token to compare with: a token is then checked only
    ///   against the provider.
    func checkRefreshedIDToken(_ raw: String, previous: OAuth2Token) async -> RefreshedIDTokenVerdict {
        let refreshed: IDToken
        do throws(SparkError) {
            refreshed = try await verify(raw, nonce: nil, provider: try await openIDProvider())
        } catch {
            if case .idToken(let refusal) = error {
                logger.error("Spark refresh: ID token refused", metadata: ["error": "\(error)"])
                return .refuse(refusal)
            }
            logger.warning("Spark refresh: ID token not checkable now; the sign-in's is kept", metadata: ["error": "\(error)"])
            return .drop
        }
        guard let original = previous.idToken.flatMap(IDToken.unverifiedClaims(of:)).flatMap({ try? IDToken(claims: $0) }) else {
            return .keep
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
            return .refuse(.refreshMismatch(claim: mismatch))
        }
        return .keep
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
