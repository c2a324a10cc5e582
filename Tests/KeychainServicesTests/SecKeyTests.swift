// SecKey on Linux: key creation and import/export in Apple's formats, attributes, every
// implemented algorithm end to end, and Apple's error codes for what fails.

import KeychainTestSupport
import Crypto
import Foundation
import KeychainServices
import Testing

@Suite("SecKey: keys, signatures, encryption, key exchange")
struct SecKeyTests {
    static let message = Data("KeychainKit signs this".utf8)

    // MARK: Creation, attributes, representations

    @Test("EC keys on P-256/384/521: block size, attributes, X9.63 round trip", arguments: [(256, 32, 65), (384, 48, 97), (521, 66, 133)])
    func ellipticCurveKeys(bits: Int, blockSize: Int, publicLength: Int) throws {
        let tag = Data("com.example.key".utf8)
        let privateKey = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits,
                                       extra: [kSecPrivateKeyAttrs: [kSecAttrApplicationTag: tag] as CFDictionary])
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        #expect(SecKeyGetBlockSize(privateKey) == blockSize)
        #expect(SecKeyGetBlockSize(publicKey) == blockSize)

        let publicData = try externalRepresentation(publicKey)
        #expect(publicData.count == publicLength && publicData.first == 0x04)
        let privateData = try externalRepresentation(privateKey)
        #expect(privateData.count == publicLength + blockSize && privateData.prefix(publicLength) == publicData)

        let attributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeECSECPrimeRandom as String)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == bits)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == sha1(publicData))
        #expect(attributes[kSecValueData as String] == nil, "private key bytes must not be in the attributes")
        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(publicAttributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
        #expect(publicAttributes[kSecValueData as String] as? Data == publicData)

        let reimported = try #require(importKey(privateData, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: true).value)
        #expect(reimported == privateKey)
        #expect(try externalRepresentation(reimported) == privateData)
        let reimportedPublic = try #require(importKey(publicData, type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: false).value)
        #expect(reimportedPublic == publicKey && reimportedPublic != privateKey)
        #expect(CFGetTypeID(privateKey) == SecKeyGetTypeID())
    }

    @Test("RSA 2048: PKCS#1 representations, block size, attributes")
    func rsaKeys() throws {
        let privateKey = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        #expect(SecKeyGetBlockSize(privateKey) == 256)
        let publicData = try externalRepresentation(publicKey)
        let privateData = try externalRepresentation(privateKey)
        // PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e } — starts with the modulus INTEGER.
        #expect(publicData.prefix(4) == Data([0x30, 0x82, 0x01, 0x0a]))
        // PKCS#1 RSAPrivateKey: SEQUENCE { INTEGER 0 (version), INTEGER n, … }.
        #expect(privateData[4...6] == Data([0x02, 0x01, 0x00]) && privateData[7] == 0x02)
        let attributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeRSA as String)
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 2048)
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == sha1(publicData))
        let reimported = try #require(importKey(privateData, type: kSecAttrKeyTypeRSA, privateClass: true).value)
        #expect(reimported == privateKey)
        #expect(try #require(importKey(publicData, type: kSecAttrKeyTypeRSA, privateClass: false).value) == publicKey)
    }

    @Test("a key's description names it without key bytes")
    func descriptionHasNoKeyBytes() throws {
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let secret = try externalRepresentation(key).suffix(32)
        let text = "\(key)"
        #expect(text.contains("EC") && text.contains("256") && text.contains("private"))
        #expect(!text.lowercased().contains(Data(secret.prefix(4)).hex))
    }

    @Test("bad creation parameters and malformed key data give errSecParam in the OSStatus domain")
    func badInput() throws {
        let noSize = capture { SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom] as CFDictionary, $0) }
        #expect(noSize.value == nil && noSize.code == Int(errSecParam))
        #expect(noSize.error.map { CFErrorGetDomain($0) as String } == NSOSStatusErrorDomain)
        let badSize = capture { SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 200] as CFDictionary, $0) }
        #expect(badSize.code == Int(errSecParam))
        let badType = capture { SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeAES, kSecAttrKeySizeInBits: 256] as CFDictionary, $0) }
        #expect(badType.code == Int(errSecParam))
        let smallRSA = capture { SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 1024] as CFDictionary, $0) }
        #expect(smallRSA.code == Int(errSecParam))

        let garbage = importKey(Data(repeating: 0x04, count: 65), type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: false)
        #expect(garbage.value == nil && garbage.code == Int(errSecParam))
        #expect(garbage.error.map { CFErrorCopyDescription($0) as String }?.contains("EC public key creation from data failed") == true)
        #expect(importKey(Data([0x30, 0x03, 0x02, 0x01, 0x00]), type: kSecAttrKeyTypeRSA, privateClass: true).code == Int(errSecParam))
        let noClass = capture { SecKeyCreateWithData(Data(count: 65) as CFData, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom] as CFDictionary, $0) }
        #expect(noClass.code == Int(errSecParam))
    }

    // MARK: Signatures

    static let ecdsaAlgorithms: [SecKeyAlgorithm] = [
        .ecdsaSignatureMessageX962SHA1, .ecdsaSignatureMessageX962SHA256, .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512,
    ]

    @Test("ECDSA message signatures verify on every curve and hash; altered data or signature fails with errSecVerifyFailed",
          arguments: [256, 384, 521])
    func ecdsaMessages(bits: Int) throws {
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        for algorithm in Self.ecdsaAlgorithms {
            #expect(SecKeyIsAlgorithmSupported(key, .sign, algorithm))
            #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, algorithm))
            #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm))
            let signature = try #require(sign(key, algorithm, Self.message).value)
            #expect(signature.first == 0x30, "X9.62 signatures are DER SEQUENCEs")
            #expect(verify(publicKey, algorithm, Self.message, signature).value == true)
            let wrongData = verify(publicKey, algorithm, Self.message + Data([0]), signature)
            #expect(wrongData.value == false && wrongData.code == Int(errSecVerifyFailed))
            var altered = signature
            altered[altered.count - 1] ^= 0x01
            #expect(verify(publicKey, algorithm, Self.message, altered).code == Int(errSecVerifyFailed))
            #expect(verify(publicKey, algorithm, Self.message, Data("not DER".utf8)).code == Int(errSecVerifyFailed))
        }
    }

    @Test("ECDSA digest signatures equal message signatures of the same hash; a wrong digest length is errSecParam")
    func ecdsaDigests() throws {
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let digest = sha256(Self.message)
        let signature = try #require(sign(key, .ecdsaSignatureDigestX962SHA256, digest).value)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, signature).value == true)
        let fromMessage = try #require(sign(key, .ecdsaSignatureMessageX962SHA256, Self.message).value)
        #expect(verify(publicKey, .ecdsaSignatureDigestX962SHA256, digest, fromMessage).value == true)
        #expect(verify(publicKey, .ecdsaSignatureDigestX962, digest, fromMessage).value == true)
        let shortDigest = sign(key, .ecdsaSignatureDigestX962SHA256, digest.prefix(20))
        #expect(shortDigest.value == nil && shortDigest.code == Int(errSecParam))
    }

    @Test("RSA PKCS#1 v1.5 and PSS message signatures verify; PSS is randomised; tampering fails")
    func rsaSignatures() throws {
        let key = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let algorithms: [SecKeyAlgorithm] = [
            .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureMessagePKCS1v15SHA384, .rsaSignatureMessagePKCS1v15SHA512,
            .rsaSignatureMessagePSSSHA256, .rsaSignatureMessagePSSSHA384, .rsaSignatureMessagePSSSHA512,
        ]
        for algorithm in algorithms {
            let signature = try #require(sign(key, algorithm, Self.message).value, "\(algorithm.rawValue)")
            #expect(signature.count == 256)
            #expect(verify(publicKey, algorithm, Self.message, signature).value == true)
            #expect(verify(publicKey, algorithm, Self.message + Data([1]), signature).code == Int(errSecVerifyFailed))
        }
        let first = try #require(sign(key, .rsaSignatureMessagePKCS1v15SHA256, Self.message).value)
        #expect(sign(key, .rsaSignatureMessagePKCS1v15SHA256, Self.message).value == first, "PKCS#1 v1.5 is deterministic")
        #expect(sign(key, .rsaSignatureMessagePSSSHA256, Self.message).value != sign(key, .rsaSignatureMessagePSSSHA256, Self.message).value)
        // A PSS signature is not a PKCS#1 v1.5 one.
        let pss = try #require(sign(key, .rsaSignatureMessagePSSSHA256, Self.message).value)
        #expect(verify(publicKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message, pss).code == Int(errSecVerifyFailed))
    }

    @Test("an algorithm the key cannot perform is errSecParam, Apple's 'not supported by the key'; one not implemented is errSecUnimplemented")
    func unsupportedAlgorithms() throws {
        let ecKey = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let ecPublic = try #require(SecKeyCopyPublicKey(ecKey))
        #expect(sign(ecPublic, .ecdsaSignatureMessageX962SHA256, Self.message).code == Int(errSecParam))
        #expect(sign(ecKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message).code == Int(errSecParam))
        #expect(encrypt(ecPublic, .rsaEncryptionOAEPSHA256, Self.message).code == Int(errSecParam))
        #expect(sign(ecKey, .ecdsaSignatureMessageX962SHA224, Self.message).code == Int(errSecUnimplemented))
        #expect(sign(ecKey, SecKeyAlgorithm(rawValue: "algid:sign:nonsense" as CFString), Self.message).code == Int(errSecUnimplemented))
        #expect(!SecKeyIsAlgorithmSupported(ecKey, .sign, .ecdsaSignatureMessageX962SHA224))
        #expect(!SecKeyIsAlgorithmSupported(ecKey, .keyExchange, .ecdsaSignatureMessageX962SHA256))
        #expect(SecKeyIsAlgorithmSupported(ecKey, .keyExchange, .ecdhKeyExchangeStandardX963SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ecPublic, .keyExchange, .ecdhKeyExchangeStandard))
    }

    @Test("verifying or encrypting with a private key is errSecParam, as Apple's private keys do neither")
    func privateKeysDoNotVerifyOrEncrypt() throws {
        let ecKey = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let rsaKey = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let signature = try #require(sign(ecKey, .ecdsaSignatureMessageX962SHA256, Self.message).value)
        let rsaSignature = try #require(sign(rsaKey, .rsaSignatureMessagePSSSHA256, Self.message).value)
        #expect(verify(ecKey, .ecdsaSignatureMessageX962SHA256, Self.message, signature).code == Int(errSecParam))
        #expect(verify(rsaKey, .rsaSignatureMessagePSSSHA256, Self.message, rsaSignature).code == Int(errSecParam))
        #expect(encrypt(ecKey, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, Self.message).code == Int(errSecParam))
        #expect(encrypt(rsaKey, .rsaEncryptionOAEPSHA256, Self.message).code == Int(errSecParam))
        #expect(!SecKeyIsAlgorithmSupported(ecKey, .verify, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(rsaKey, .encrypt, .rsaEncryptionOAEPSHA256))
        let ecPublic = try #require(SecKeyCopyPublicKey(ecKey))
        #expect(verify(ecPublic, .ecdsaSignatureMessageX962SHA256, Self.message, signature).value == true)
        #expect(SecKeyIsAlgorithmSupported(ecPublic, .verify, .ecdsaSignatureMessageX962SHA256))
    }

    // MARK: Encryption

    @Test("RSA-OAEP SHA-1/SHA-256 round trip; a foreign key or altered ciphertext fails with errSecParam")
    func rsaOAEP() throws {
        let key = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let other = try randomKey(kSecAttrKeyTypeRSA, 2048)
        for algorithm in [SecKeyAlgorithm.rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA1] {
            let ciphertext = try #require(encrypt(publicKey, algorithm, Self.message).value)
            #expect(ciphertext.count == 256)
            #expect(decrypt(key, algorithm, ciphertext).value == Self.message)
            #expect(decrypt(other, algorithm, ciphertext).code == Int(errSecParam))
            var altered = ciphertext
            altered[10] ^= 0x80
            #expect(decrypt(key, algorithm, altered).code == Int(errSecParam))
        }
        let tooLong = encrypt(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 256 - 2 * 32 - 1))
        #expect(tooLong.value == nil && tooLong.code == Int(errSecParam))
        #expect(encrypt(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 256 - 2 * 32 - 2)).value != nil)
    }

    @Test("ECIES (standard, cofactor, variable IV) round trip on every curve; tampering and foreign keys fail",
          arguments: [256, 384, 521])
    func ecies(bits: Int) throws {
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let other = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits)
        let publicLength = try externalRepresentation(publicKey).count
        let algorithms: [SecKeyAlgorithm] = [
            .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
            .eciesEncryptionCofactorX963SHA256AESGCM, .eciesEncryptionStandardX963SHA256AESGCM,
            .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
        ]
        for algorithm in algorithms {
            let ciphertext = try #require(encrypt(publicKey, algorithm, Self.message).value)
            #expect(ciphertext.count == publicLength + Self.message.count + 16, "ephemeral key ‖ ciphertext ‖ tag")
            #expect(decrypt(key, algorithm, ciphertext).value == Self.message)
            #expect(decrypt(other, algorithm, ciphertext).code == Int(errSecParam))
            for index in [0, publicLength + 1, ciphertext.count - 1] {
                var altered = ciphertext
                altered[index] ^= 0x01
                #expect(decrypt(key, algorithm, altered).code == Int(errSecParam))
            }
            #expect(decrypt(key, algorithm, ciphertext.prefix(publicLength + 15)).code == Int(errSecParam))
        }
        // Zero-IV and variable-IV variants are different formats.
        let variable = try #require(encrypt(publicKey, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, Self.message).value)
        #expect(decrypt(key, .eciesEncryptionCofactorX963SHA256AESGCM, variable).code == Int(errSecParam))
    }

    // MARK: Key exchange

    @Test("ECDH agrees both ways, raw and through the X9.63 KDF; the KDF needs a requested size")
    func keyExchange() throws {
        let alice = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 384)
        let bob = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 384)
        let alicePublic = try #require(SecKeyCopyPublicKey(alice))
        let bobPublic = try #require(SecKeyCopyPublicKey(bob))
        func exchange(_ own: SecKey, _ peer: SecKey, _ algorithm: SecKeyAlgorithm, _ parameters: [CFString: Any]) -> Outcome<CFData> {
            capture { SecKeyCopyKeyExchangeResult(own, algorithm, peer, parameters as CFDictionary, $0) }
        }
        let raw = try #require(exchange(alice, bobPublic, .ecdhKeyExchangeStandard, [:]).value as Data?)
        #expect(raw.count == 48)
        #expect(exchange(bob, alicePublic, .ecdhKeyExchangeCofactor, [:]).value as Data? == raw)
        let parameters: [CFString: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 32,
                                           SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("info".utf8)]
        let derived = try #require(exchange(alice, bobPublic, .ecdhKeyExchangeStandardX963SHA256, parameters).value as Data?)
        #expect(derived.count == 32 && derived != raw.prefix(32))
        #expect(exchange(bob, alicePublic, .ecdhKeyExchangeStandardX963SHA256, parameters).value as Data? == derived)
        #expect(exchange(alice, bobPublic, .ecdhKeyExchangeStandardX963SHA256, [:]).code == Int(errSecParam))
        let p256 = try #require(SecKeyCopyPublicKey(try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)))
        #expect(exchange(alice, p256, .ecdhKeyExchangeStandard, [:]).code == Int(errSecParam))
        #expect(exchange(alicePublic, bobPublic, .ecdhKeyExchangeStandard, [:]).code == Int(errSecParam))
    }

    // MARK: Vocabulary

    @Test("algorithm names have Apple's exact string values")
    func algorithmNames() {
        #expect(SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue as String == "algid:sign:ECDSA:message-X962:SHA256")
        #expect(SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384.rawValue as String == "algid:sign:ECDSA:digest-X962:SHA384")
        #expect(SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256.rawValue as String == "algid:sign:RSA:message-PKCS1v15:SHA256")
        #expect(SecKeyAlgorithm.rsaSignatureMessagePSSSHA512.rawValue as String == "algid:sign:RSA:message-PSS:SHA512:SHA512:64")
        #expect(SecKeyAlgorithm.rsaEncryptionOAEPSHA256.rawValue as String == "algid:encrypt:RSA:OAEP:SHA256")
        #expect(SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM.rawValue as String
            == "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
        #expect(SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM.rawValue as String == "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
        #expect(SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256.rawValue as String == "algid:keyexchange:ECDH:KDFX963:SHA256")
        #expect(SecKeyAlgorithm.ecdhKeyExchangeCofactor.rawValue as String == "algid:keyexchange:ECDHC")
        #expect(kSecPrivateKeyAttrs as String == "private" && kSecPublicKeyAttrs as String == "public")
        #expect(SecKeyKeyExchangeParameter.requestedSize.rawValue as String == "requestedSize")
        #expect(SecKeyKeyExchangeParameter.sharedInfo.rawValue as String == "sharedInfo")
        #expect(SecKeyOperationType.keyExchange.rawValue == 4)
    }
}

/// The digests the expectations need, from swift-crypto (hashing is not what these tests test).
func sha1(_ data: Data) -> Data { Data(Insecure.SHA1.hash(data: data)) }
func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
