import Crypto
import FoundationEssentials

/// A Spotify session (the SDK's `SPTSession`): the tokens of one sign-in, turned into a string
/// and back so that it can be kept elsewhere (another device, the app's server).
///
/// The string is encrypted, as the SDK guide asks of a stored session: AES-256-GCM with a key
/// the caller keeps, over the session's JSON, as unpadded base64url text. An altered string or
/// another key is refused with ``SpotifyError/invalidSession(reason:)``. The description shows
/// no token.
///
/// ```swift
/// let key = SpotifySession.makeKey()                 // keep it in the app's key store
/// let text = try session.encryptedString(using: key)
/// let back = try SpotifySession(encryptedString: text, using: key)
/// ```
public struct SpotifySession: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The tokens: access token, refresh token (Spotify's own, or the swap service's), expiry,
    /// scope.
    public var token: OAuth2Token

    /// A session of `token`.
    public init(token: OAuth2Token) {
        self.token = token
    }

    /// When the access token expires (Spotify's last an hour); the refresh token renews it.
    public var expirationDate: Date? { token.expiresAt }

    /// Whether the access token is still good (the SDK's `isValid`); an expired session with a
    /// refresh token is renewed by the client on its next request.
    public var isValid: Bool { !token.isExpired() }

    /// Whether the session can be renewed when its access token expires.
    public var canRenew: Bool { token.refreshToken != nil }

    /// A fresh random 256-bit key for ``encryptedString(using:)``.
    public static func makeKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// The session encrypted with `key`: base64url text, safe in URLs and files.
    /// - Throws: ``SpotifyError/invalidSession(reason:)`` if it cannot be encoded or sealed.
    public func encryptedString(using key: SymmetricKey) throws(SpotifyError) -> String {
        do {
            let plain = try JSONEncoder().encode(self)
            let sealed = try AES.GCM.seal(plain, using: key, authenticating: Self.associatedData)
            guard let combined = sealed.combined else { throw SpotifyError.invalidSession(reason: "the nonce is not the standard size") }
            return Base64URL.encode(Array(combined))
        } catch let error as SpotifyError {
            throw error
        } catch {
            throw .invalidSession(reason: "it cannot be encrypted (\(type(of: error)))")
        }
    }

    /// The session in `text`, made by ``encryptedString(using:)`` with the same `key`.
    /// - Throws: ``SpotifyError/invalidSession(reason:)`` for text that is not base64url, is
    ///   too short, was altered or sealed with another key, or holds no session.
    public init(encryptedString text: String, using key: SymmetricKey) throws(SpotifyError) {
        guard let bytes = Self.decodeBase64URL(text.trimmedWhitespace) else {
            throw .invalidSession(reason: "not base64url text")
        }
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(combined: bytes)
            plain = try AES.GCM.open(box, using: key, authenticating: Self.associatedData)
        } catch {
            // GCM's tag check: the text was altered, or the key is not the one it was sealed with.
            throw .invalidSession(reason: "it cannot be decrypted (another key, or the text was altered)")
        }
        do {
            self = try JSONDecoder().decode(SpotifySession.self, from: plain)
        } catch {
            throw .invalidSession(reason: "the decrypted data is not a Spotify session")
        }
    }

    /// The token's kind and expiry; never the tokens.
    public var description: String { "SpotifySession(\(token))" }

    /// Binds the ciphertext to its purpose: a string sealed for something else does not open.
    /// A computed value rather than a stored `Data` global: LeakSanitizer reports a global's
    /// heap-backed `Data` as leaked.
    private static var associatedData: [UInt8] { Array("streamplay.spotify.session.v1".utf8) }

    /// Unpadded base64url (RFC 4648 §5) to bytes; nil for any other character.
    private static func decodeBase64URL(_ text: String) -> Data? {
        guard !text.isEmpty, text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text {
            switch character {
            case "-": standard.append("+")
            case "_": standard.append("/")
            case "A"..."Z", "a"..."z", "0"..."9": standard.append(character)
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard)
    }
}
