import Crypto
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tokens in files only the user can read, encrypted with AES-256-GCM.
///
/// The directory (by default `$XDG_STATE_HOME/streamplay`, else `~/.local/state/streamplay`)
/// is created with mode 0700. The key is 32 random bytes in `token-key` there, and each
/// account's token is sealed in `ACCOUNT.token`. Every file is created with mode 0600 from the
/// start (never widened then narrowed) and replaced atomically (a new file renamed over the
/// old), so a crash leaves the old token or the new one, never half of one. A file or directory
/// others can read is refused.
public final class EncryptedFileTokenStore: TokenStore {
    /// Where the files are.
    public let directory: String
    /// The key's bytes, when given (SymmetricKey itself is not Sendable).
    private let keyBytes: [UInt8]?

    /// A store in `directory` (the default when `nil`). With `key`, that key is used instead of
    /// the key file (for a key kept elsewhere, in a keyring say).
    public init(directory: String? = nil, key: SymmetricKey? = nil) {
        self.directory = directory ?? Self.defaultDirectory()
        keyBytes = key?.withUnsafeBytes { Array($0) }
    }

    /// `$XDG_STATE_HOME/streamplay`, or `~/.local/state/streamplay`.
    public static func defaultDirectory() -> String {
        if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
            return state + "/streamplay"
        }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
        return home + "/.local/state/streamplay"
    }

    /// The token file of `account`.
    public func path(for account: String) throws(TokenStoreError) -> String {
        let allowed = account.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-"
        }
        guard allowed, !account.isEmpty, !account.hasPrefix(".") else { throw .invalidAccountName(account) }
        return "\(directory)/\(account).token"
    }

    /// The token stored for `account`.
    public func load(account: String) throws(TokenStoreError) -> OAuth2Token? {
        let path = try path(for: account)
        guard let sealed = try SecureFile.read(path) else { return nil }
        let key = try loadKey(create: false)
        guard let key, let box = try? AES.GCM.SealedBox(combined: sealed),
              let plain = try? AES.GCM.open(box, using: key),
              let token = try? JSONDecoder().decode(OAuth2Token.self, from: plain) else {
            throw .undecryptable(path: path)
        }
        return token
    }

    /// Seals `token` into `account`'s file.
    public func save(_ token: OAuth2Token, account: String) throws(TokenStoreError) {
        let path = try path(for: account)
        try SecureFile.makeDirectory(directory)
        guard let key = try loadKey(create: true) else { throw .fileSystem(path: directory, reason: "no key") }
        let plain: Data
        do {
            plain = try JSONEncoder().encode(token)
        } catch {
            throw .fileSystem(path: path, reason: "cannot encode the token")
        }
        guard let sealed = try? AES.GCM.seal(plain, using: key).combined else {
            throw .fileSystem(path: path, reason: "encryption failed")
        }
        try SecureFile.replace(path, with: Array(sealed))
    }

    /// Deletes `account`'s file.
    public func remove(account: String) throws(TokenStoreError) {
        let path = try path(for: account)
        if unlink(path) != 0 && errno != ENOENT {
            throw .fileSystem(path: path, reason: String(cString: strerror(errno)))
        }
    }

    private func loadKey(create: Bool) throws(TokenStoreError) -> SymmetricKey? {
        if let keyBytes { return SymmetricKey(data: keyBytes) }
        let path = "\(directory)/token-key"
        if let bytes = try SecureFile.read(path) {
            guard bytes.count == 32 else { throw .undecryptable(path: path) }
            return SymmetricKey(data: bytes)
        }
        guard create else { return nil }
        let fresh = SymmetricKey(size: .bits256)
        let bytes = fresh.withUnsafeBytes { Array($0) }
        // O_EXCL: when two processes race, one key wins and the other reads it.
        if try !SecureFile.createExclusive(path, with: bytes) {
            return try loadKey(create: false)
        }
        return fresh
    }
}
