// Known-answer vectors for SecKey: published ECDSA vectors (RFC 6979 §A.2.5, P-256 with
// SHA-256) and ECIES / ECDH vectors made by an independent implementation (pyca/cryptography,
// scripts/ecies-vectors.py), so that a wrong format — not just a self-consistent one — fails.

import KeychainTestSupport
import Foundation
import KeychainServices
import Testing

@Suite("SecKey known-answer vectors")
struct SecKeyKnownAnswerTests {
    // RFC 6979 A.2.5: P-256 key pair.
    static let rfc6979PublicKey = Data(hex: """
        04 60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6
           7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299
        """)
    static let rfc6979PrivateScalar = Data(hex: "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")

    /// DER of (r, s) from RFC 6979 A.2.5, SHA-256, messages "sample" and "test".
    static let rfc6979Signatures: [(String, Data)] = [
        ("sample", Data(hex: """
            3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716
            022100F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8
            """)),
        ("test", Data(hex: """
            3045022100F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367
            0220019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083
            """)),
    ]

    @Test("RFC 6979 P-256/SHA-256 signatures verify, as message and as digest; altered ones do not")
    func rfc6979Verification() throws {
        let publicKey = try #require(importKey(Self.rfc6979PublicKey, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: false).value)
        for (message, signature) in Self.rfc6979Signatures {
            let data = Data(message.utf8)
            #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, data, signature).value == true, "\(message)")
            #expect(verify(publicKey, .ecdsaSignatureDigestX962SHA256, sha256(data), signature).value == true)
            var altered = signature
            altered[10] ^= 0x01
            #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, data, altered).code == Int(errSecVerifyFailed))
        }
        // The RFC's private key imports (X9.63 04‖X‖Y‖K) and its public half is the RFC's public key.
        let privateKey = try #require(importKey(Self.rfc6979PublicKey + Self.rfc6979PrivateScalar,
                                                type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: true).value)
        #expect(try externalRepresentation(try #require(SecKeyCopyPublicKey(privateKey))) == Self.rfc6979PublicKey)
        let ours = try #require(sign(privateKey, .ecdsaSignatureMessageX962SHA256, Data("sample".utf8)).value)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Data("sample".utf8), ours).value == true)
    }

    // scripts/ecies-vectors.py: recipient P-256 private key, plaintext, and the two ECIES outputs.
    static let recipientPrivateKey = Data(hex: """
        04945bafbfe49bbffe5c33d49cd083da75ce805aaf1f2a82cfb010e0968163582a40f7f692a325069e22cc0fe04c0e68322f4459e45106d54325ee23b8c66bd184
        1f2e3d4c5b6a79880102030405060708090a0b0c0d0e0f101112131415161718
        """)
    static let plaintext = Data(hex: "4b6579636861696e4b6974204543494553206b6e6f776e20616e73776572")
    static let ephemeralPublicKey = Data(hex: """
        04c9224be45d027539fbd13da815cfec145391dd3ebf37e611ce22f88cdf2800c6262d95aaac88839b2e301f572512714fe63cf8bb059e9a46ded20d6ed82e0000
        """)
    static let zeroIVCiphertext = Data(hex: """
        04c9224be45d027539fbd13da815cfec145391dd3ebf37e611ce22f88cdf2800c6262d95aaac88839b2e301f572512714fe63cf8bb059e9a46ded20d6ed82e0000
        3575d2d98739641e64f64bb6496d32342dac0f92d3e4f8012858a33dd77b4a6f1b86b2195608bc5b8ffe0b4831bf
        """)
    static let variableIVCiphertext = Data(hex: """
        04c9224be45d027539fbd13da815cfec145391dd3ebf37e611ce22f88cdf2800c6262d95aaac88839b2e301f572512714fe63cf8bb059e9a46ded20d6ed82e0000
        14fec3f820c6de9b9e75ccdd5d99eae18e71b23aab12319cf88bf704ea6de0dd6babf68c262b03b6a8ff64afb9fb
        """)

    @Test("ECIES ciphertexts made by an independent implementation decrypt, in Apple's zero-IV and variable-IV formats")
    func eciesVectors() throws {
        let key = try #require(importKey(Self.recipientPrivateKey, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: true).value)
        #expect(decrypt(key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, Self.variableIVCiphertext).value == Self.plaintext)
        #expect(decrypt(key, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, Self.variableIVCiphertext).value == Self.plaintext)
        #expect(decrypt(key, .eciesEncryptionCofactorX963SHA256AESGCM, Self.zeroIVCiphertext).value == Self.plaintext)
        #expect(decrypt(key, .eciesEncryptionStandardX963SHA256AESGCM, Self.zeroIVCiphertext).value == Self.plaintext)
    }

    @Test("ECDH and X9.63-SHA-256 key exchange match the independent implementation")
    func keyExchangeVectors() throws {
        let key = try #require(importKey(Self.recipientPrivateKey, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: true).value)
        let peer = try #require(importKey(Self.ephemeralPublicKey, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: false).value)
        let raw = capture { SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, $0) }
        #expect(raw.value as Data? == Data(hex: "567ef5a386dd0ec9f7ac42cfab08052cfa324cc744f6b298de0be2e6e5d80ae8"))
        let parameters: [CFString: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 42,
                                           SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("KeychainKit".utf8)]
        let derived = capture { SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandardX963SHA256, peer, parameters as CFDictionary, $0) }
        #expect(derived.value as Data? == Data(hex: "417b4767dbdf2e452880c1fd52d19c4b5ecaa196f034ded141249e16c5d7d4fe612fd793e33b6a2a9756"))
    }
}
