import FoundationEssentials
import Logging

/// An app's own token (the client credentials grant) kept between runs and shared by every
/// client and process that uses the same store, because services ration these tokens
/// (SoundCloud: 50 per 12 hours per app, 30 per hour per IP address).
///
/// The token is stored in the ``TokenStore`` under its own account name (encrypted and 0600 in
/// an ``EncryptedFileTokenStore``, like every other token). ``token(rejecting:margin:logger:renew:)``
/// holds a ``TokenLock`` across the read, the check, the request and the write: for an
/// ``EncryptedFileTokenStore`` a lock file beside the tokens (`ACCOUNT.lock`), locked with
/// `flock(2)`, so two `streamplay` processes started together ask the server once and the second
/// takes up the first one's token.
public final class AppTokenCache: Sendable {
    /// Where the token is kept.
    public let store: any TokenStore
    /// The account name the token is stored under.
    public let account: String
    /// The lock held while the token is checked and renewed.
    public let lock: TokenLock

    /// A cache of `account` in `store`; the lock is a file beside an ``EncryptedFileTokenStore``'s
    /// tokens, else a lock within this process.
    public init(store: any TokenStore, account: String) {
        self.store = store
        self.account = account
        if let files = store as? EncryptedFileTokenStore {
            lock = TokenLock(path: "\(files.directory)/\(account).lock")
        } else {
            lock = TokenLock(path: nil, name: "\(ObjectIdentifier(store as AnyObject))/\(account)")
        }
    }

    /// The account name of the app token that belongs with a client's `account`
    /// (`soundcloud` → `soundcloud-app`).
    public static func account(for clientAccount: String) -> String { clientAccount + "-app" }

    /// A token good for more than `margin` seconds: the stored one, or, when there is none, it
    /// expires within the margin, or it is the one the server just `rejecting`, one that
    /// `renew` makes from the stored token (with its refresh token, or a new grant), which is
    /// then stored. The lock is held throughout.
    /// - Throws: what `renew` throws; ``OAuth2Error/invalidResponse(reason:status:)`` (status 0)
    ///   when the lock cannot be had. A store that cannot be read or written is logged and
    ///   passed over: the token is then fetched, or kept in memory only.
    public func token(rejecting rejected: String? = nil, margin: Double, logger: Logger,
                      renew: @Sendable (OAuth2Token?) async throws(OAuth2Error) -> OAuth2Token) async throws(OAuth2Error) -> OAuth2Token {
        do {
            // The lock file lives beside the tokens: their directory (0700) must exist first.
            if let files = store as? EncryptedFileTokenStore { try SecureFile.makeDirectory(files.directory) }
            try await lock.acquire()
        } catch {
            throw .invalidResponse(reason: "app token cache: \(error)", status: 0)
        }
        defer { lock.release() }
        var stored: OAuth2Token?
        do {
            stored = try store.load(account: account)
        } catch {
            logger.warning("cached app token unreadable; fetching another", metadata: ["error": "\(error)"])
        }
        if let stored, !stored.isExpired(margin: margin), stored.accessToken != rejected {
            logger.debug("cached app token taken up", metadata: ["account": "\(account)", "token": "\(stored)"])
            return stored
        }
        let fresh = try await renew(stored)
        do {
            try store.save(fresh, account: account)
        } catch {
            logger.error("could not cache the app token", metadata: ["account": "\(account)", "error": "\(error)"])
        }
        return fresh
    }

    /// Deletes the cached token (nothing happens when there is none).
    public func remove() throws(TokenStoreError) {
        try store.remove(account: account)
    }
}
