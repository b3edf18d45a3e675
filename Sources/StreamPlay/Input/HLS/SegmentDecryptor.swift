import COpenSSL

/// Decrypts one AES-128 encrypted HLS segment (CBC, PKCS#7 padding; RFC 8216 section 4.3.2.4)
/// as its bytes arrive, so that audio reaches the decoder before the segment is complete.
///
/// CBC carries its state from block to block, so a transfer resumed at the next ciphertext
/// byte (after a dropped connection) simply goes on through the same decryptor.
final class SegmentDecryptor {
    private let context: OpaquePointer

    /// - Parameters:
    ///   - key: the 16-byte key from the playlist's key URI.
    ///   - iv: the 16-byte initialization vector (from the tag, or the media sequence number).
    init(key: [UInt8], iv: [UInt8]) throws(PlayerError) {
        guard key.count == 16, iv.count == 16 else {
            throw .decodingFailed(reason: "AES-128 needs a 16-byte key and IV (the key has \(key.count) bytes)")
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .decodingFailed(reason: "EVP_CIPHER_CTX_new failed")
        }
        self.context = context
        guard EVP_DecryptInit_ex(context, EVP_aes_128_cbc(), nil, key, iv) == 1 else {
            throw .decodingFailed(reason: "AES-128 decryptor setup failed")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Decrypts `ciphertext`, appending the plaintext available so far to `output`. The last
    /// block is held back until ``finish(into:)``, since it carries the padding.
    func update(_ ciphertext: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(PlayerError) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: ciphertext.count + 16))
        var written: Int32 = 0
        let result = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptUpdate(context, buffer.baseAddress! + start, &written,
                              base.assumingMemoryBound(to: UInt8.self), Int32(ciphertext.count))
        }
        output.removeLast(output.count - start - Int(max(written, 0)))
        guard result == 1 else { throw .decodingFailed(reason: "AES-128 decryption failed") }
    }

    /// Ends the segment: checks and strips the padding, appending the last plaintext.
    func finish(into output: inout [UInt8]) throws(PlayerError) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: 32))
        var written: Int32 = 0
        let result = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + start, &written)
        }
        output.removeLast(output.count - start - Int(max(written, 0)))
        guard result == 1 else {
            // Bad padding: the key or IV is wrong, or the segment was cut short.
            throw .decodingFailed(reason: "AES-128 segment does not decrypt (wrong key or IV, or a truncated segment)")
        }
    }
}
