import Foundation
import Testing
@testable import StreamPlayServices

/// The encrypted token file store: owner-only files, encrypted, atomic, refusing what others
/// can read.
@Suite("Token stores")
struct TokenStoreTests {
    static let token = OAuth2Token(accessToken: "access-\(UUID().uuidString)", refreshToken: "refresh-\(UUID().uuidString)",
                                   expiresAt: Date(timeIntervalSince1970: 2_000_000_000), scope: "profile")

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("a saved token comes back; the files are 0600 in a 0700 directory, and hold no token in clear")
    func roundTrip() throws {
        let root = TestEnvironment.temporaryPath("state")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Even with a umask that would let everyone read, the files are the owner's alone:
        // the mode is given when they are created.
        let previous = umask(0)
        defer { umask(previous) }
        let store = EncryptedFileTokenStore(directory: "\(root)/streamplay")
        try store.save(Self.token, account: "soundcloud")
        #expect(try store.load(account: "soundcloud") == Self.token)
        #expect(try Self.mode("\(root)/streamplay") == 0o700)
        #expect(try Self.mode("\(root)/streamplay/soundcloud.token") == 0o600)
        #expect(try Self.mode("\(root)/streamplay/token-key") == 0o600)
        let sealed = try Data(contentsOf: URL(fileURLWithPath: "\(root)/streamplay/soundcloud.token"))
        #expect(sealed.range(of: Data(Self.token.accessToken.utf8)) == nil)
        #expect(sealed.range(of: Data(Self.token.refreshToken!.utf8)) == nil)
        // Replaced atomically: no temporary file left behind.
        try store.save(OAuth2Token(accessToken: "other"), account: "soundcloud")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/streamplay").sorted() == ["soundcloud.token", "token-key"])
        try store.remove(account: "soundcloud")
        #expect(try store.load(account: "soundcloud") == nil)
        try store.remove(account: "soundcloud")  // nothing there: no error
    }

    @Test("another key, or an altered file, cannot be read")
    func undecryptable() throws {
        let root = TestEnvironment.temporaryPath("state")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = EncryptedFileTokenStore(directory: root)
        try store.save(Self.token, account: "spotify")
        let other = EncryptedFileTokenStore(directory: root, key: .init(size: .bits256))
        #expect(throws: TokenStoreError.undecryptable(path: "\(root)/spotify.token")) { try other.load(account: "spotify") }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(root)/spotify.token"))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: "\(root)/spotify.token"))
        chmod("\(root)/spotify.token", 0o600)
        #expect(throws: TokenStoreError.undecryptable(path: "\(root)/spotify.token")) { try store.load(account: "spotify") }
    }

    @Test("files or a directory others can read are refused; odd account names too")
    func insecure() throws {
        let root = TestEnvironment.temporaryPath("state")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = EncryptedFileTokenStore(directory: root)
        try store.save(Self.token, account: "spark")
        chmod("\(root)/spark.token", 0o644)
        #expect(throws: TokenStoreError.insecurePermissions(path: "\(root)/spark.token", mode: 0o644)) { try store.load(account: "spark") }
        chmod("\(root)/spark.token", 0o600)
        chmod(root, 0o755)
        #expect(throws: TokenStoreError.insecurePermissions(path: root, mode: 0o755)) { try store.save(Self.token, account: "spark") }
        for name in ["../x", "", ".hidden", "a/b"] {
            #expect(throws: TokenStoreError.invalidAccountName(name)) { try store.load(account: name) }
        }
    }

    @Test("the default directory follows XDG_STATE_HOME")
    func defaultDirectory() {
        let previous = ProcessInfo.processInfo.environment["XDG_STATE_HOME"]
        setenv("XDG_STATE_HOME", "/somewhere/state", 1)
        defer { if let previous { setenv("XDG_STATE_HOME", previous, 1) } else { unsetenv("XDG_STATE_HOME") } }
        #expect(EncryptedFileTokenStore.defaultDirectory() == "/somewhere/state/streamplay")
    }

    @Test("a token's description shows no token")
    func description() {
        #expect(!Self.token.description.contains(Self.token.accessToken))
        #expect(!Self.token.description.contains(Self.token.refreshToken!))
        #expect(!"\(Self.token)".contains("access-"))
    }
}
