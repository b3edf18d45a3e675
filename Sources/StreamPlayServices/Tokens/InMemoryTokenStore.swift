import StreamPlay
import Synchronization

/// Tokens for the life of the process only.
public final class InMemoryTokenStore: TokenStore {
    private let tokens = Mutex<[String: OAuth2Token]>([:])

    /// An empty store.
    public init() {}

    /// The token stored for `account`.
    public func load(account: String) throws(TokenStoreError) -> OAuth2Token? {
        tokens.withEngineLock { $0[account] }
    }

    /// Stores `token` for `account`.
    public func save(_ token: OAuth2Token, account: String) throws(TokenStoreError) {
        tokens.withEngineLock { $0[account] = token }
    }

    /// Forgets `account`'s token.
    public func remove(account: String) throws(TokenStoreError) {
        _ = tokens.withEngineLock { $0.removeValue(forKey: account) }
    }
}
