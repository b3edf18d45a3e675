/// Keeps tokens between runs, one entry per account name (a service and user).
public protocol TokenStore: Sendable {
    /// The token stored for `account`, or `nil`.
    func load(account: String) throws(TokenStoreError) -> OAuth2Token?
    /// Stores `token` for `account`, replacing what was there.
    func save(_ token: OAuth2Token, account: String) throws(TokenStoreError)
    /// Forgets `account`'s token; nothing happens when there is none.
    func remove(account: String) throws(TokenStoreError)
}

/// Why a ``TokenStore`` failed. Never carries a token.
public enum TokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The account name cannot name a file (only letters, digits, `.`, `_` and `-`).
    case invalidAccountName(String)
    /// A file or directory could not be read, written or created.
    case fileSystem(path: String, reason: String)
    /// The stored data could not be decrypted: another key, or the file was altered.
    case undecryptable(path: String)
    /// A file or directory others can read or write: refused rather than trusted.
    case insecurePermissions(path: String, mode: UInt32)

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidAccountName(let name): "invalid account name '\(name)'"
        case .fileSystem(let path, let reason): "\(path): \(reason)"
        case .undecryptable(let path): "\(path) cannot be decrypted (another key, or altered)"
        case .insecurePermissions(let path, let mode): "\(path) is accessible to others (mode \(String(mode, radix: 8))); refusing it"
        }
    }
}
