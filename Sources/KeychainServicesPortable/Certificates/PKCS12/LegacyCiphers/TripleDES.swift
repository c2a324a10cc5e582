// Triple DES in EDE form (NIST SP 800-67): the cipher of PKCS#12's
// pbeWithSHAAnd3-KeyTripleDES-CBC (24-byte key) and pbeWithSHAAnd2-KeyTripleDES-CBC (16-byte
// key, K3 = K1), as OpenSSL's des-ede3-cbc and des-ede-cbc.

/// Triple DES: encrypt with K1, decrypt with K2, encrypt with K3.
package struct TripleDES: LegacyBlockCipher {
    private let first: DES, second: DES, third: DES

    /// A 24-byte key (three keys) or a 16-byte key (two keys, the first used again as the third).
    package init(key: [UInt8]) throws(LegacyCipherError) {
        guard key.count == 24 || key.count == 16 else { throw .invalidKeyLength(key.count) }
        first = try DES(key: Array(key[0..<8]))
        second = try DES(key: Array(key[8..<16]))
        third = key.count == 24 ? try DES(key: Array(key[16..<24])) : first
    }

    package func encrypt(block: UInt64) -> UInt64 {
        third.encrypt(block: second.decrypt(block: first.encrypt(block: block)))
    }

    package func decrypt(block: UInt64) -> UInt64 {
        first.decrypt(block: second.encrypt(block: third.decrypt(block: block)))
    }
}
