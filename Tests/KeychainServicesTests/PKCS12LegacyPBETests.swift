#if KEYCHAINKIT_REIMPLEMENTED
// PKCS#12 files built here byte by byte, with a valid MAC over contents an attacker chose: the
// legacy PBE decryption behind a verified MAC must turn every malformed ciphertext (bad
// padding in each way a padding oracle probes, cut, empty, garbage after unpadding) into
// errSecDecode, never a crash or a partial result. SecPKCS12ImportTests covers files openssl wrote.

import Crypto
import Foundation
import KeychainServices
@testable import KeychainServicesPortable
import Testing

@Suite("PKCS#12 legacy PBEs on handmade files")
struct PKCS12LegacyPBETests {
    static let password = "pässwörd"

    /// An RFC 7292 PBE: its OID's last arc under pkcs-12PbeIds, key length, and cipher.
    struct Scheme: CustomTestStringConvertible, Sendable {
        let name: String
        let arc: UInt
        let keyLength: Int
        let make: @Sendable ([UInt8]) throws -> any LegacyBlockCipher
        var testDescription: String { name }
    }

    static let schemes: [Scheme] = [
        Scheme(name: "pbeWithSHAAnd3-KeyTripleDES-CBC", arc: 3, keyLength: 24) { try TripleDES(key: $0) },
        Scheme(name: "pbeWithSHAAnd2-KeyTripleDES-CBC", arc: 4, keyLength: 16) { try TripleDES(key: $0) },
        Scheme(name: "pbeWithSHAAnd128BitRC2-CBC", arc: 5, keyLength: 16) { try RC2(key: $0, effectiveBits: 128) },
        Scheme(name: "pbeWithSHAAnd40BitRC2-CBC", arc: 6, keyLength: 5) { try RC2(key: $0, effectiveBits: 40) },
    ]

    // MARK: DER, by hand

    private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var remaining = content.count
            while remaining > 0 { length.insert(UInt8(remaining & 0xff), at: 0); remaining >>= 8 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
    private static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }
    private static func octets(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }
    private static func explicit0(_ content: [UInt8]) -> [UInt8] { tlv(0xa0, content) }
    private static func integer(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var remaining = value
        repeat { bytes.insert(UInt8(remaining & 0xff), at: 0); remaining >>= 8 } while remaining > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }
    private static func oid(_ arcs: [UInt]) -> [UInt8] {
        var body: [UInt8] = [UInt8(arcs[0] * 40 + arcs[1])]
        for arc in arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7f)]
            var remaining = arc >> 7
            while remaining > 0 { chunk.insert(UInt8(remaining & 0x7f) | 0x80, at: 0); remaining >>= 7 }
            body += chunk
        }
        return tlv(0x06, body)
    }
    private static let pkcs7Data = oid([1, 2, 840, 113549, 1, 7, 1])
    private static func pbe(_ arc: UInt) -> [UInt8] { oid([1, 2, 840, 113549, 1, 12, 1, arc]) }

    /// The AlgorithmIdentifier of PBE `arc` with `salt` and `iterations`.
    private static func algorithm(_ arc: UInt, salt: [UInt8], iterations: Int) -> [UInt8] {
        sequence(pbe(arc), sequence(octets(salt), integer(iterations)))
    }

    /// A PFX whose authenticated safe holds `contentInfos`, with an HMAC-SHA-1 MAC under `password`.
    private static func pfx(_ contentInfos: [UInt8]..., password: String = password) -> [UInt8] {
        let authenticatedSafe = tlv(0x30, contentInfos.flatMap { $0 })
        let macSalt: [UInt8] = Array(repeating: 0x5a, count: 8)
        let macKey = PKCS12Crypto.pkcs12KDF(Insecure.SHA1.self, password: password, salt: macSalt, id: 3, iterations: 2048, byteCount: 20)
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: authenticatedSafe, using: SymmetricKey(data: macKey)))
        let macData = sequence(sequence(sequence(oid([1, 3, 14, 3, 2, 26]), [0x05, 0x00]), octets(mac)), octets(macSalt), integer(2048))
        return sequence(integer(3), sequence(pkcs7Data, explicit0(octets(authenticatedSafe))), macData)
    }

    /// An encryptedData ContentInfo with `ciphertext` under PBE `arc`.
    private static func encryptedData(_ arc: UInt, salt: [UInt8], iterations: Int = 2048, ciphertext: [UInt8]) -> [UInt8] {
        let encryptedContentInfo = sequence(pkcs7Data, algorithm(arc, salt: salt, iterations: iterations), tlv(0x80, ciphertext))
        return sequence(oid([1, 2, 840, 113549, 1, 7, 6]), explicit0(sequence(integer(0), encryptedContentInfo)))
    }

    /// A data ContentInfo of SafeContents holding one shroudedKeyBag with `ciphertext` under PBE `arc`.
    private static func shroudedKeyBag(_ arc: UInt, salt: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        let bag = sequence(oid([1, 2, 840, 113549, 1, 12, 10, 1, 2]),
                           explicit0(sequence(algorithm(arc, salt: salt, iterations: 2048), octets(ciphertext))))
        return sequence(pkcs7Data, explicit0(octets(sequence(bag))))
    }

    /// The scheme's cipher and IV for `salt` under the password, as RFC 7292 B.2 derives them.
    private static func cipher(_ scheme: Scheme, salt: [UInt8]) throws -> (any LegacyBlockCipher, [UInt8]) {
        let key = PKCS12Crypto.pkcs12KDF(Insecure.SHA1.self, password: password, salt: salt, id: 1, iterations: 2048, byteCount: scheme.keyLength)
        let iv = PKCS12Crypto.pkcs12KDF(Insecure.SHA1.self, password: password, salt: salt, id: 2, iterations: 2048, byteCount: 8)
        return (try scheme.make(key), iv)
    }

    /// CBC ciphertext that deciphers to `plaintext` (whole blocks) exactly, with no padding added.
    private static func rawCiphertext(_ plaintext: [UInt8], _ cipher: some LegacyBlockCipher, iv: [UInt8]) throws -> [UInt8] {
        Array(try LegacyCBC.encrypt(plaintext, cipher: cipher, iv: iv).dropLast(8))
    }

    private static func importStatus(_ der: [UInt8], password: String = password) -> (OSStatus, Int) {
        var items: CFArray?
        let status = SecPKCS12Import(Data(der) as CFData, [kSecImportExportPassphrase as String: password] as CFDictionary, &items)
        return (status, (items as? [Any])?.count ?? -1)
    }

    // MARK: Tests

    @Test("a well-formed encrypted (empty) SafeContents opens: the builder and the decryption agree", arguments: schemes)
    func wellFormedOpens(_ scheme: Scheme) throws {
        let salt: [UInt8] = Array(1...8)
        let (cipher, iv) = try Self.cipher(scheme, salt: salt)
        let file = Self.pfx(Self.encryptedData(scheme.arc, salt: salt, ciphertext: try LegacyCBC.encrypt([0x30, 0x00], cipher: cipher, iv: iv)))
        #expect(Self.importStatus(file) == (errSecSuccess, 0))
        #expect(Self.importStatus(file, password: "wrong").0 == errSecAuthFailed)
    }

    @Test("bad padding, cut, empty or garbage ciphertexts behind a valid MAC are errSecDecode", arguments: schemes)
    func malformedCiphertexts(_ scheme: Scheme) throws {
        let salt: [UInt8] = Array(9...16)
        let (cipher, iv) = try Self.cipher(scheme, salt: salt)
        let content: [UInt8] = [0x30, 0x00] + Array(repeating: 0x41, count: 6)
        var ciphertexts: [(String, [UInt8])] = []
        for last: UInt8 in [0x00, 0x09, 0x10, 0x80, 0xff] {
            ciphertexts.append(("last byte \(last)", try Self.rawCiphertext(content + Array(repeating: 0x07, count: 7) + [last], cipher, iv: iv)))
        }
        // 0x03 at the end asks for three padding bytes; the ones before it disagree.
        ciphertexts.append(("inconsistent padding", try Self.rawCiphertext(content + [1, 2, 3, 4, 5, 0x02, 0x03, 0x03], cipher, iv: iv)))
        let valid = try LegacyCBC.encrypt([0x30, 0x00], cipher: cipher, iv: iv)
        ciphertexts.append(("one byte cut", Array(valid.dropLast())))
        ciphertexts.append(("one byte added", valid + [0]))
        ciphertexts.append(("empty", []))
        ciphertexts.append(("valid padding around a non-DER plaintext", try LegacyCBC.encrypt(Array("not DER".utf8), cipher: cipher, iv: iv)))
        for (name, ciphertext) in ciphertexts {
            let file = Self.pfx(Self.encryptedData(scheme.arc, salt: salt, ciphertext: ciphertext))
            #expect(Self.importStatus(file) == (errSecDecode, -1), "\(name)")
        }
    }

    @Test("a shrouded key bag under a legacy PBE opens to its key; with bad padding it is errSecDecode", arguments: schemes)
    func shroudedKeyBags(_ scheme: Scheme) throws {
        let salt: [UInt8] = Array(17...24)
        let (cipher, iv) = try Self.cipher(scheme, salt: salt)
        let key = P256.Signing.PrivateKey()
        let sealed = try LegacyCBC.encrypt(Array(key.derRepresentation), cipher: cipher, iv: iv)
        let archive = try PKCS12Archive(der: Self.pfx(Self.shroudedKeyBag(scheme.arc, salt: salt, ciphertext: sealed)), password: Self.password)
        #expect(archive.keys.count == 1)
        let opened = try #require(archive.keys.first.flatMap { SecKeyCopyExternalRepresentation($0.value, nil) as Data? })
        #expect(opened == key.x963Representation)

        // Ends in 0x00, never valid padding (the key's own 64th byte would be 0x01, valid, one time in 256).
        let unpadded = try Self.rawCiphertext(Array(key.derRepresentation.prefix(63)) + [0x00], cipher, iv: iv)
        let file = Self.pfx(Self.shroudedKeyBag(scheme.arc, salt: salt, ciphertext: unpadded))
        #expect(Self.importStatus(file) == (errSecDecode, -1))
    }

    @Test("a key cut short behind valid padding is errSecDecode; a key of a kind not offered is errSecUnimplemented")
    func keyKinds() throws {
        let scheme = Self.schemes[0]
        let salt: [UInt8] = Array(25...32)
        let (cipher, iv) = try Self.cipher(scheme, salt: salt)
        func status(ofKey pkcs8: [UInt8]) throws -> OSStatus {
            let sealed = try LegacyCBC.encrypt(pkcs8, cipher: cipher, iv: iv)
            return Self.importStatus(Self.pfx(Self.shroudedKeyBag(scheme.arc, salt: salt, ciphertext: sealed))).0
        }
        let p256 = Array(P256.Signing.PrivateKey().derRepresentation)
        // The outer SEQUENCE's length still claims the whole key: DER no longer parses.
        #expect(try status(ofKey: Array(p256.prefix(p256.count - 10))) == errSecDecode)
        // A well-formed PrivateKeyInfo naming P-256 whose key octets are not an ECPrivateKey.
        let p256Algorithm = Self.sequence(Self.oid([1, 2, 840, 10045, 2, 1]), Self.oid([1, 2, 840, 10045, 3, 1, 7]))
        #expect(try status(ofKey: Self.sequence(Self.integer(0), p256Algorithm, Self.octets([0x30, 0x00]))) == errSecDecode)
        // Not DER at all.
        #expect(try status(ofKey: Array(repeating: 0x41, count: 40)) == errSecDecode)
        // Ed25519 (RFC 8410) and EC on secp256k1: well-formed, not offered.
        let ed25519 = Self.sequence(Self.integer(0), Self.sequence(Self.oid([1, 3, 101, 112])), Self.octets(Self.octets(Array(repeating: 7, count: 32))))
        #expect(try status(ofKey: ed25519) == errSecUnimplemented)
        let k1Algorithm = Self.sequence(Self.oid([1, 2, 840, 10045, 2, 1]), Self.oid([1, 3, 132, 0, 10]))
        #expect(try status(ofKey: Self.sequence(Self.integer(0), k1Algorithm, Self.octets([0x30, 0x00]))) == errSecUnimplemented)
        // The whole key still opens: the classification only runs when no parser took the key.
        #expect(try status(ofKey: p256) == errSecSuccess)
    }

    @Test("a PBE asking for more iterations than a file may spend is errSecDecode, before any hashing")
    func iterationBudget() throws {
        let file = Self.pfx(Self.encryptedData(3, salt: Array(1...8), iterations: Int(Int32.max), ciphertext: Array(repeating: 0, count: 16)))
        #expect(Self.importStatus(file) == (errSecDecode, -1))
        // Key and IV each take the iterations: half the budget plus one is already too much.
        let half = Self.pfx(Self.encryptedData(3, salt: Array(1...8), iterations: PKCS12Archive.maximumTotalIterations / 2 + 1,
                                                ciphertext: Array(repeating: 0, count: 16)))
        #expect(Self.importStatus(half) == (errSecDecode, -1))
    }

    @Test("RFC 7292's RC4 schemes are errSecUnimplemented")
    func rc4IsUnimplemented() {
        for arc: UInt in [1, 2] {
            let file = Self.pfx(Self.encryptedData(arc, salt: Array(1...8), ciphertext: Array(repeating: 0, count: 16)))
            #expect(Self.importStatus(file).0 == errSecUnimplemented)
        }
    }
}
#endif
