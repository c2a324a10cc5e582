#if KEYCHAINKIT_REIMPLEMENTED
// Known answers for the legacy ciphers of PKCS#12 (RC2 from RFC 2268 section 5, DES from FIPS
// 46-3's worked example and the classic all-zero case) and the behaviour of their CBC mode on
// hostile ciphertexts. LegacyCipherOpenSSLTests checks the same code against the openssl CLI.

import Foundation
import KeychainServicesPortable
import KeychainTestSupport
import Testing

@Suite("Legacy block ciphers (RC2, DES, 3DES-EDE, CBC)")
struct LegacyCipherTests {
    private static func block(_ hex: String) -> UInt64 { LegacyCipherTests.bytes(hex).reduce(0) { $0 << 8 | UInt64($1) } }
    private static func bytes(_ hex: String) -> [UInt8] { Array(Data(hex: hex)) }

    /// RFC 2268 section 5: key, effective key bits, plaintext, ciphertext.
    static let rc2Vectors: [(key: String, effectiveBits: Int, plaintext: String, ciphertext: String)] = [
        ("0000000000000000", 63, "0000000000000000", "ebb773f993278eff"),
        ("ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"),
        ("3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"),
        ("88", 64, "0000000000000000", "61a8a244adacccf0"),
        ("88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"),
        ("88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"),
        ("88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"),
        ("88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e", 129, "0000000000000000", "5b78d3a43dfff1f1"),
    ]

    @Test("RC2 gives RFC 2268's eight known answers both ways", arguments: rc2Vectors.indices)
    func rc2KnownAnswers(index: Int) throws {
        let vector = Self.rc2Vectors[index]
        let cipher = try RC2(key: Self.bytes(vector.key), effectiveBits: vector.effectiveBits)
        #expect(cipher.encrypt(block: Self.block(vector.plaintext)) == Self.block(vector.ciphertext))
        #expect(cipher.decrypt(block: Self.block(vector.ciphertext)) == Self.block(vector.plaintext))
    }

    @Test("DES gives the FIPS 46-3 worked example and the classic 8787… → 0 case both ways")
    func desKnownAnswers() throws {
        for (key, plaintext, ciphertext) in [("133457799bbcdff1", "0123456789abcdef", "85e813540f0ab405"),
                                            ("0e329232ea6d0d73", "8787878787878787", "0000000000000000")] {
            let cipher = try DES(key: Self.bytes(key))
            #expect(cipher.encrypt(block: Self.block(plaintext)) == Self.block(ciphertext))
            #expect(cipher.decrypt(block: Self.block(ciphertext)) == Self.block(plaintext))
        }
    }

    @Test("3DES with K1 = K2 = K3 (or K1 = K2 for two keys) is single DES under K1, as EDE is meant to be")
    func tripleDESDegeneratesToDES() throws {
        let key = Self.bytes("133457799bbcdff1")
        let plaintext = Self.block("0123456789abcdef")
        let single = try DES(key: key).encrypt(block: plaintext)
        #expect(try TripleDES(key: key + key + key).encrypt(block: plaintext) == single)
        #expect(try TripleDES(key: key + key).encrypt(block: plaintext) == single)
        let distinct = try TripleDES(key: key + Self.bytes("0e329232ea6d0d73") + key)
        #expect(distinct.encrypt(block: plaintext) != single)
        #expect(distinct.decrypt(block: distinct.encrypt(block: plaintext)) == plaintext)
    }

    @Test("keys and IVs of the wrong length are refused with the length named")
    func wrongLengths() {
        #expect(throws: LegacyCipherError.invalidKeyLength(7)) { try DES(key: [UInt8](repeating: 1, count: 7)) }
        #expect(throws: LegacyCipherError.invalidKeyLength(8)) { try TripleDES(key: [UInt8](repeating: 1, count: 8)) }
        #expect(throws: LegacyCipherError.invalidKeyLength(0)) { try RC2(key: [], effectiveBits: 40) }
        #expect(throws: LegacyCipherError.invalidKeyLength(129)) { try RC2(key: [UInt8](repeating: 1, count: 129), effectiveBits: 128) }
        #expect(throws: LegacyCipherError.invalidIVLength(16)) {
            try LegacyCBC.decrypt([UInt8](repeating: 0, count: 8), cipher: try DES(key: [UInt8](repeating: 1, count: 8)),
                                  iv: [UInt8](repeating: 0, count: 16))
        }
        #expect(LegacyCipherError.invalidIVLength(16).description.contains("16 bytes"))
    }

    @Test("CBC round-trips every length across block boundaries, padding a whole block when aligned")
    func cbcRoundTrip() throws {
        let cipher = try RC2(key: Self.bytes("0011223344"), effectiveBits: 40)
        let iv = Self.bytes("0001020304050607")
        for length in 0...25 {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let ciphertext = try LegacyCBC.encrypt(plaintext, cipher: cipher, iv: iv)
            #expect(ciphertext.count == (length / 8 + 1) * 8)
            #expect(try LegacyCBC.decrypt(ciphertext, cipher: cipher, iv: iv) == plaintext)
        }
    }

    @Test("a padding-oracle attacker's ciphertexts (every value of the last byte, cut or empty input) get a clean error or a plaintext, never a crash")
    func hostileCiphertexts() throws {
        let cipher = try TripleDES(key: Array(0..<24))
        let iv = Self.bytes("0706050403020100")
        let ciphertext = try LegacyCBC.encrypt(Array("sixteen byte msg".utf8), cipher: cipher, iv: iv)
        var badPadding = 0
        // Changing the second-to-last block's last byte changes only the last plaintext byte:
        // exactly the probe of a padding oracle. 0x01 in the last byte is valid padding; every
        // other value but the genuine one (0x08) must be refused as bad padding.
        for value in 0...255 {
            var probe = ciphertext
            probe[probe.count - 9] ^= UInt8(value)
            do throws(LegacyCipherError) {
                let plaintext = try LegacyCBC.decrypt(probe, cipher: cipher, iv: iv)
                #expect(plaintext.count <= 23)
            } catch {
                #expect(error == .badPadding)
                badPadding += 1
            }
        }
        #expect(badPadding == 254)
        #expect(throws: LegacyCipherError.ciphertextNotBlockAligned(0)) { try LegacyCBC.decrypt([], cipher: cipher, iv: iv) }
        #expect(throws: LegacyCipherError.ciphertextNotBlockAligned(23)) {
            try LegacyCBC.decrypt(Array(ciphertext.dropLast()), cipher: cipher, iv: iv)
        }
    }
}
#endif
