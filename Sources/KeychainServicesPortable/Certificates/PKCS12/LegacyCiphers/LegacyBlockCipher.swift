// The 64-bit block ciphers of PKCS#12's legacy password-based encryption (RC2, DES, 3DES-EDE)
// and the CBC mode with PKCS#7 padding they are used in (RFC 7292 appendix C, RFC 8018 6.1.1).
// swift-crypto offers neither cipher; they exist here only to read old `.p12` files, never to
// protect anything new.

/// A block cipher with 8-byte blocks; a block is its 8 bytes read big-endian.
package protocol LegacyBlockCipher {
    /// Enciphers one block.
    func encrypt(block: UInt64) -> UInt64
    /// Deciphers one block.
    func decrypt(block: UInt64) -> UInt64
}

/// Why a legacy cipher refused its input.
package enum LegacyCipherError: Error, Equatable, CustomStringConvertible {
    /// A key of a length the cipher does not take.
    case invalidKeyLength(Int)
    /// An initialisation vector that is not 8 bytes.
    case invalidIVLength(Int)
    /// A ciphertext that is empty or not a whole number of 8-byte blocks.
    case ciphertextNotBlockAligned(Int)
    /// The last block does not end in PKCS#7 padding: wrong key, or an altered ciphertext.
    case badPadding

    package var description: String {
        switch self {
        case .invalidKeyLength(let length): "a key of \(length) bytes is not valid for this cipher"
        case .invalidIVLength(let length): "the initialisation vector is \(length) bytes; CBC with a 64-bit block cipher needs 8"
        case .ciphertextNotBlockAligned(let length): "the ciphertext is \(length) bytes, not a positive multiple of 8"
        case .badPadding: "the decrypted data does not end in valid padding (wrong key or altered ciphertext)"
        }
    }
}

/// CBC mode with PKCS#7 padding over a ``LegacyBlockCipher``.
package enum LegacyCBC {
    /// Pads `plaintext` to whole blocks (PKCS#7) and enciphers it in CBC mode under `iv`.
    package static func encrypt(_ plaintext: [UInt8], cipher: some LegacyBlockCipher,
                                iv: [UInt8]) throws(LegacyCipherError) -> [UInt8] {
        var chain = try block(of: iv)
        let padLength = 8 - plaintext.count % 8
        let padded = plaintext + [UInt8](repeating: UInt8(padLength), count: padLength)
        var output: [UInt8] = []
        output.reserveCapacity(padded.count)
        for start in stride(from: 0, to: padded.count, by: 8) {
            chain = cipher.encrypt(block: load(padded, at: start) ^ chain)
            store(chain, into: &output)
        }
        return output
    }

    /// Deciphers CBC `ciphertext` under `iv` and removes its PKCS#7 padding.
    package static func decrypt(_ ciphertext: [UInt8], cipher: some LegacyBlockCipher,
                                iv: [UInt8]) throws(LegacyCipherError) -> [UInt8] {
        var chain = try block(of: iv)
        guard !ciphertext.isEmpty, ciphertext.count % 8 == 0 else { throw .ciphertextNotBlockAligned(ciphertext.count) }
        var output: [UInt8] = []
        output.reserveCapacity(ciphertext.count)
        for start in stride(from: 0, to: ciphertext.count, by: 8) {
            let block = load(ciphertext, at: start)
            store(cipher.decrypt(block: block) ^ chain, into: &output)
            chain = block
        }
        // Every padding byte is checked whatever the first says, so the time taken does not tell
        // which byte was wrong (callers verify a MAC first; this keeps the mode safe on its own).
        let padLength = Int(output[output.count - 1])
        var invalid = UInt8(padLength == 0 || padLength > 8 ? 1 : 0)
        for offset in 1...8 {
            let inPadding: UInt8 = offset <= padLength ? 0xff : 0
            invalid |= (output[output.count - offset] ^ UInt8(truncatingIfNeeded: padLength)) & inPadding
        }
        guard invalid == 0 else { throw .badPadding }
        return Array(output.dropLast(padLength))
    }

    private static func block(of iv: [UInt8]) throws(LegacyCipherError) -> UInt64 {
        guard iv.count == 8 else { throw .invalidIVLength(iv.count) }
        return load(iv, at: 0)
    }

    /// The 8 bytes of `bytes` from `start`, big-endian.
    static func load(_ bytes: [UInt8], at start: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in start..<start + 8 { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// Appends `block`'s 8 bytes, big-endian.
    static func store(_ block: UInt64, into output: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: block >> UInt64(shift))) }
    }
}
