// DES (FIPS 46-3), the building block of the triple DES (EDE) that PKCS#12's
// pbeWithSHAAnd3-KeyTripleDES-CBC uses for private keys in `openssl pkcs12 -export -legacy`,
// OpenSSL 1.x and Windows files. Written from the standard's tables, one bit at a time: it
// only ever decrypts a few kilobytes of an old `.p12` file.

/// Single DES with a 64-bit key (parity bits ignored, as FIPS 46-3 allows).
package struct DES: LegacyBlockCipher {
    /// The 16 48-bit round keys K1…K16.
    private let roundKeys: [UInt64]

    /// Schedules the 8-byte `key` (FIPS 46-3, "Key Schedule Calculation").
    package init(key: [UInt8]) throws(LegacyCipherError) {
        guard key.count == 8 else { throw .invalidKeyLength(key.count) }
        let selected = Self.permute(LegacyCBC.load(key, at: 0), width: 64, table: Self.permutedChoice1)
        var c = UInt32(truncatingIfNeeded: selected >> 28) & 0x0fff_ffff
        var d = UInt32(truncatingIfNeeded: selected) & 0x0fff_ffff
        var keys: [UInt64] = []
        for shift in Self.keyShifts {
            c = (c << UInt32(shift) | c >> UInt32(28 - shift)) & 0x0fff_ffff
            d = (d << UInt32(shift) | d >> UInt32(28 - shift)) & 0x0fff_ffff
            keys.append(Self.permute(UInt64(c) << 28 | UInt64(d), width: 56, table: Self.permutedChoice2))
        }
        roundKeys = keys
    }

    package func encrypt(block: UInt64) -> UInt64 { crypt(block, keys: roundKeys) }

    package func decrypt(block: UInt64) -> UInt64 { crypt(block, keys: roundKeys.reversed()) }

    /// The 16 Feistel rounds between IP and its inverse, with the round keys in `keys` order.
    private func crypt(_ block: UInt64, keys: [UInt64]) -> UInt64 {
        let permuted = Self.permute(block, width: 64, table: Self.initialPermutation)
        var left = UInt32(truncatingIfNeeded: permuted >> 32)
        var right = UInt32(truncatingIfNeeded: permuted)
        for key in keys {
            (left, right) = (right, left ^ Self.feistel(right, key: key))
        }
        // The last round's halves are not swapped: R16 L16 goes into IP⁻¹.
        return Self.permute(UInt64(right) << 32 | UInt64(left), width: 64, table: Self.finalPermutation)
    }

    /// f(R, K): expand R to 48 bits, add the round key, substitute through S1…S8, permute by P.
    private static func feistel(_ right: UInt32, key: UInt64) -> UInt32 {
        let mixed = permute(UInt64(right), width: 32, table: expansion) ^ key
        var substituted: UInt64 = 0
        for box in 0..<8 {
            let six = Int(mixed >> UInt64(42 - 6 * box)) & 0x3f
            let row = (six >> 4) & 0b10 | six & 1
            let column = (six >> 1) & 0xf
            substituted = substituted << 4 | UInt64(substitutionBoxes[box][row * 16 + column])
        }
        return UInt32(truncatingIfNeeded: permute(substituted, width: 32, table: permutation))
    }

    /// The bits of `input` (`width` bits, bit 1 the most significant) named by `table`, in order.
    private static func permute(_ input: UInt64, width: Int, table: [UInt8]) -> UInt64 {
        var output: UInt64 = 0
        for position in table { output = output << 1 | (input >> UInt64(width - Int(position))) & 1 }
        return output
    }

    private static let initialPermutation: [UInt8] = [
        58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
        62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
        57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
        61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
    ]

    /// IP⁻¹, computed from IP so the two cannot disagree.
    private static let finalPermutation: [UInt8] = {
        var inverse = [UInt8](repeating: 0, count: 64)
        for (index, position) in initialPermutation.enumerated() { inverse[Int(position) - 1] = UInt8(index + 1) }
        return inverse
    }()

    private static let expansion: [UInt8] = [
        32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
        16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
    ]

    private static let permutation: [UInt8] = [
        16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
        2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25,
    ]

    private static let permutedChoice1: [UInt8] = [
        57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
        10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
        63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
        14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
    ]

    private static let permutedChoice2: [UInt8] = [
        14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
        41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
    ]

    private static let keyShifts = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1]

    /// S1…S8, each four rows of sixteen.
    private static let substitutionBoxes: [[UInt8]] = [
        [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7,
         0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
         4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0,
         15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
        [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10,
         3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
         0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15,
         13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
        [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8,
         13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
         13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7,
         1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
        [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15,
         13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
         10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4,
         3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
        [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9,
         14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
         4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14,
         11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
        [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11,
         10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
         9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6,
         4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
        [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1,
         13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
         1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2,
         6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
        [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7,
         1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
         7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8,
         2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
    ]
}
