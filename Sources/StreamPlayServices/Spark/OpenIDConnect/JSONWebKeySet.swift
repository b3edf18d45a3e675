import Crypto
import FoundationEssentials
import _CryptoExtras

/// The RSA signing keys of an OpenID provider: its JSON Web Key Set (RFC 7517), as its
/// discovery document's `jwks_uri` serves it.
///
/// Only what ID token checks need is kept: RSA keys (`"kty": "RSA"`) meant for signatures (no
/// `use`, or `"use": "sig"`), by key id. Other keys (EC, encryption keys) are skipped; a key
/// whose `n` or `e` cannot be read is refused, so a broken set is noticed when it is read.
public struct JSONWebKeySet: Sendable {
    /// One RSA public key.
    struct Key: Sendable {
        /// `kid`, if the set names it.
        let id: String?
        /// `alg`, if the set restricts the key to one algorithm.
        let algorithm: String?
        let publicKey: _RSA.Signing.PublicKey
    }

    let keys: [Key]

    /// The key ids of the RSA signing keys, in the set's order (nil for a key without `kid`).
    public var keyIDs: [String?] { keys.map(\.id) }

    /// Reads a key set: `{"keys": [{"kty": "RSA", "kid": ..., "n": ..., "e": ...}, ...]}`.
    /// - Throws: ``IDTokenError/invalidKeySet(reason:)`` when it is no key set, or an RSA
    ///   signing key in it cannot be read.
    public init(json: JSON) throws(IDTokenError) {
        guard let entries = json["keys"]?.array else { throw .invalidKeySet(reason: "no \"keys\" array") }
        var keys: [Key] = []
        for entry in entries {
            guard entry["kty"]?.string == "RSA", entry["use"]?.string ?? "sig" == "sig" else { continue }
            guard let modulus = entry["n"]?.string.flatMap(Base64URL.decode),
                  let exponent = entry["e"]?.string.flatMap(Base64URL.decode), !modulus.isEmpty, !exponent.isEmpty else {
                throw .invalidKeySet(reason: "an RSA key without a readable n or e")
            }
            let publicKey: _RSA.Signing.PublicKey
            do {
                publicKey = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
            } catch {
                throw .invalidKeySet(reason: "an RSA key that cannot be used (\(error))")
            }
            // A key too small to trust is refused rather than used.
            guard publicKey.keySizeInBits >= 2048 else {
                throw .invalidKeySet(reason: "an RSA key of \(publicKey.keySizeInBits) bits (2048 at least)")
            }
            keys.append(Key(id: entry["kid"]?.string, algorithm: entry["alg"]?.string, publicKey: publicKey))
        }
        self.keys = keys
    }

    /// Reads a key set from a JWKS document's bytes.
    /// - Throws: ``IDTokenError/invalidKeySet(reason:)``.
    public init(bytes: [UInt8]) throws(IDTokenError) {
        let json: JSON
        do {
            json = try JSON(parsing: bytes)
        } catch {
            throw .invalidKeySet(reason: "not JSON")
        }
        try self.init(json: json)
    }

    /// The key a token signed with `keyID` names: that key, or without a key id the set's only
    /// key. Nil when there is none (the provider may have rotated its keys).
    func key(for keyID: String?) -> Key? {
        guard let keyID else { return keys.count == 1 ? keys[0] : nil }
        return keys.first { $0.id == keyID }
    }
}

extension Base64URL {
    /// Unpadded (or padded) base64url text to bytes; nil for text that is not base64url.
    static func decode(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
