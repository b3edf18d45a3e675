import Crypto
import FoundationEssentials

/// Proof Key for Code Exchange (RFC 7636), S256 only: the plain method protects nothing.
public struct PKCE: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret kept by the client until the code is exchanged.
    public let verifier: String
    /// BASE64URL(SHA256(verifier)), sent with the authorization request.
    public let challenge: String
    /// Always "S256".
    public let method = "S256"

    /// A fresh verifier: 32 random bytes, 43 characters base64url.
    public init() {
        self.init(verifier: Base64URL.encode(RandomBytes.make(32)))
    }

    /// A given verifier (43 to 128 characters of the unreserved set).
    public init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// The method and challenge; never the verifier.
    public var description: String { "PKCE(\(method), challenge \(challenge))" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// What `dump` shows: no verifier.
    public var customMirror: Mirror { Mirror(self, children: ["method": method, "challenge": challenge]) }
}

/// Unpadded base64url (RFC 4648 §5), as PKCE and OAuth state values use.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }
}

/// Cryptographically random bytes from the system generator.
enum RandomBytes {
    static func make(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
