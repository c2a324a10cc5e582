// RC2 (RFC 2268): the cipher of PKCS#12's pbeWithSHAAnd40BitRC2-CBC, which `openssl pkcs12
// -export -legacy`, OpenSSL 1.x and Windows use for a file's certificates, and of the 128-bit
// variant. Only for reading old files: RC2-40 protects nothing against a determined reader.

/// RC2 with a key of 1–128 bytes and an effective key length of 1–1024 bits (RFC 2268).
package struct RC2: LegacyBlockCipher {
    /// The 64 16-bit subkeys K[0…63] of RFC 2268 section 2.
    private let subkeys: [UInt16]

    /// Expands `key` with `effectiveBits` bits of effective key length (RFC 2268 section 2).
    package init(key: [UInt8], effectiveBits: Int) throws(LegacyCipherError) {
        guard (1...128).contains(key.count), (1...1024).contains(effectiveBits) else { throw .invalidKeyLength(key.count) }
        var expanded = [UInt8](repeating: 0, count: 128)
        expanded.replaceSubrange(0..<key.count, with: key)
        for index in key.count..<128 {
            expanded[index] = Self.piTable[Int(expanded[index - 1] &+ expanded[index - key.count])]
        }
        // Reduce the search space to `effectiveBits` bits (T8 bytes, the top one masked).
        let effectiveBytes = (effectiveBits + 7) / 8
        let mask = UInt8(truncatingIfNeeded: 0xff >> (8 * effectiveBytes - effectiveBits))
        expanded[128 - effectiveBytes] = Self.piTable[Int(expanded[128 - effectiveBytes] & mask)]
        for index in stride(from: 127 - effectiveBytes, through: 0, by: -1) {
            expanded[index] = Self.piTable[Int(expanded[index + 1] ^ expanded[index + effectiveBytes])]
        }
        subkeys = (0..<64).map { UInt16(expanded[2 * $0]) | UInt16(expanded[2 * $0 + 1]) << 8 }
    }

    package func encrypt(block: UInt64) -> UInt64 {
        var words = Self.words(of: block)
        var next = 0
        for round in 0..<16 {
            for index in 0..<4 {
                words[index] = words[index] &+ subkeys[next] &+ (words[(index + 3) & 3] & words[(index + 2) & 3])
                    &+ (~words[(index + 3) & 3] & words[(index + 1) & 3])
                words[index] = rotateLeft(words[index], by: Self.rotations[index])
                next += 1
            }
            if round == 4 || round == 10 {  // the two MASHING rounds after mixing rounds 5 and 11
                for index in 0..<4 { words[index] = words[index] &+ subkeys[Int(words[(index + 3) & 3] & 63)] }
            }
        }
        return Self.block(of: words)
    }

    package func decrypt(block: UInt64) -> UInt64 {
        var words = Self.words(of: block)
        var next = 63
        for round in 0..<16 {
            for index in (0..<4).reversed() {
                words[index] = rotateLeft(words[index], by: 16 - Self.rotations[index])
                words[index] = words[index] &- subkeys[next] &- (words[(index + 3) & 3] & words[(index + 2) & 3])
                    &- (~words[(index + 3) & 3] & words[(index + 1) & 3])
                next -= 1
            }
            if round == 4 || round == 10 {  // the R-MASHING rounds, mirroring encryption
                for index in (0..<4).reversed() { words[index] = words[index] &- subkeys[Int(words[(index + 3) & 3] & 63)] }
            }
        }
        return Self.block(of: words)
    }

    private func rotateLeft(_ word: UInt16, by count: Int) -> UInt16 {
        word << UInt16(count) | word >> UInt16(16 - count)
    }

    /// R[0…3]: the block's bytes as little-endian 16-bit words, as RFC 2268 reads them.
    private static func words(of block: UInt64) -> [UInt16] {
        (0..<4).map { index in
            let low = UInt16(truncatingIfNeeded: block >> UInt64(56 - 16 * index))
            let high = UInt16(truncatingIfNeeded: block >> UInt64(48 - 16 * index))
            return (low & 0xff) | (high & 0xff) << 8
        }
    }

    private static func block(of words: [UInt16]) -> UInt64 {
        words.enumerated().reduce(0) { block, word in
            let bytes = UInt64(word.element & 0xff) << 8 | UInt64(word.element >> 8)
            return block | bytes << UInt64(48 - 16 * word.offset)
        }
    }

    /// s[0…3] of the MIX step.
    private static let rotations = [1, 2, 3, 5]

    /// PITABLE of RFC 2268 section 2: a permutation of 0…255 from the digits of pi.
    private static let piTable: [UInt8] = [
        0xd9, 0x78, 0xf9, 0xc4, 0x19, 0xdd, 0xb5, 0xed, 0x28, 0xe9, 0xfd, 0x79, 0x4a, 0xa0, 0xd8, 0x9d,
        0xc6, 0x7e, 0x37, 0x83, 0x2b, 0x76, 0x53, 0x8e, 0x62, 0x4c, 0x64, 0x88, 0x44, 0x8b, 0xfb, 0xa2,
        0x17, 0x9a, 0x59, 0xf5, 0x87, 0xb3, 0x4f, 0x13, 0x61, 0x45, 0x6d, 0x8d, 0x09, 0x81, 0x7d, 0x32,
        0xbd, 0x8f, 0x40, 0xeb, 0x86, 0xb7, 0x7b, 0x0b, 0xf0, 0x95, 0x21, 0x22, 0x5c, 0x6b, 0x4e, 0x82,
        0x54, 0xd6, 0x65, 0x93, 0xce, 0x60, 0xb2, 0x1c, 0x73, 0x56, 0xc0, 0x14, 0xa7, 0x8c, 0xf1, 0xdc,
        0x12, 0x75, 0xca, 0x1f, 0x3b, 0xbe, 0xe4, 0xd1, 0x42, 0x3d, 0xd4, 0x30, 0xa3, 0x3c, 0xb6, 0x26,
        0x6f, 0xbf, 0x0e, 0xda, 0x46, 0x69, 0x07, 0x57, 0x27, 0xf2, 0x1d, 0x9b, 0xbc, 0x94, 0x43, 0x03,
        0xf8, 0x11, 0xc7, 0xf6, 0x90, 0xef, 0x3e, 0xe7, 0x06, 0xc3, 0xd5, 0x2f, 0xc8, 0x66, 0x1e, 0xd7,
        0x08, 0xe8, 0xea, 0xde, 0x80, 0x52, 0xee, 0xf7, 0x84, 0xaa, 0x72, 0xac, 0x35, 0x4d, 0x6a, 0x2a,
        0x96, 0x1a, 0xd2, 0x71, 0x5a, 0x15, 0x49, 0x74, 0x4b, 0x9f, 0xd0, 0x5e, 0x04, 0x18, 0xa4, 0xec,
        0xc2, 0xe0, 0x41, 0x6e, 0x0f, 0x51, 0xcb, 0xcc, 0x24, 0x91, 0xaf, 0x50, 0xa1, 0xf4, 0x70, 0x39,
        0x99, 0x7c, 0x3a, 0x85, 0x23, 0xb8, 0xb4, 0x7a, 0xfc, 0x02, 0x36, 0x5b, 0x25, 0x55, 0x97, 0x31,
        0x2d, 0x5d, 0xfa, 0x98, 0xe3, 0x8a, 0x92, 0xae, 0x05, 0xdf, 0x29, 0x10, 0x67, 0x6c, 0xba, 0xc9,
        0xd3, 0x00, 0xe6, 0xcf, 0xe1, 0x9e, 0xa8, 0x2c, 0x63, 0x16, 0x01, 0x3f, 0x58, 0xe2, 0x89, 0xa9,
        0x0d, 0x38, 0x34, 0x1b, 0xab, 0x33, 0xff, 0xb0, 0xbb, 0x48, 0x0c, 0x5f, 0xb9, 0xb1, 0xcd, 0x2e,
        0xc5, 0xf3, 0xdb, 0x47, 0xe5, 0xa5, 0x9c, 0x77, 0x0a, 0xa6, 0x20, 0x68, 0xfe, 0x7f, 0xc1, 0xad,
    ]
}
