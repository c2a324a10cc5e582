// Key items at rest: a stored private key's bytes appear in no file of the keychain, and a
// key row altered in any of its sealed columns is reported, never returned as another key.

import Foundation
import KeychainTestSupport
import KeychainServices
import Testing
@testable import KeychainStore

@Suite("Key items: no key bytes at rest, tampering detected")
struct KeyItemTamperTests {
    /// A keychain file (with a password) holding one permanent EC key and one RSA key.
    private static func makeKeychain(_ scratch: TemporaryKeychain) throws -> (SecKeychain, ec: SecKey, rsa: SecKey) {
        AppleAPIRegistry.useTestingKDF()
        let password = Array("key-items-password".utf8)
        var created: SecKeychain?
        let status = password.withUnsafeBytes {
            SecKeychainCreate(scratch.directory + "/keys.keychain-db", UInt32(password.count), $0.baseAddress, false, nil, &created)
        }
        try #require(status == errSecSuccess)
        let keychain = try #require(created)
        func permanent(_ type: CFString, _ bits: Int, tag: String) throws -> SecKey {
            var error: Unmanaged<CFError>?
            let parameters: [CFString: Any] = [
                kSecAttrKeyType: type, kSecAttrKeySizeInBits: bits, kSecUseKeychain: keychain,
                kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data(tag.utf8)] as CFDictionary,
            ]
            let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
            return try #require(key, "\(String(describing: error?.takeRetainedValue()))")
        }
        return (keychain, try permanent(kSecAttrKeyTypeECSECPrimeRandom, 256, tag: "ec"), try permanent(kSecAttrKeyTypeRSA, 2048, tag: "rsa"))
    }

    private static func privateBytes(_ key: SecKey) throws -> Data {
        var error: Unmanaged<CFError>?
        return try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
    }

    private static func find(_ keychain: SecKeychain, tag: String) -> (OSStatus, SecKey?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data(tag.utf8), kSecReturnRef: true,
                                          kSecUseKeychain: keychain] as [CFString: Any] as CFDictionary, &result)
        return (status, result as? SecKey)
    }

    @Test("the private scalar of an EC key and the secret tail of an RSA key are in no file, in any encoding")
    func noKeyBytesAtRest() throws {
        let scratch = try TemporaryKeychain("key-at-rest")
        defer { scratch.remove() }
        let (keychain, ecKey, rsaKey) = try Self.makeKeychain(scratch)
        // EC: 04 ‖ X ‖ Y ‖ K — K is the last 32 bytes. RSA PKCS#1: the CRT coefficient ends the DER.
        let canaries = [try Self.privateBytes(ecKey).suffix(32), try Self.privateBytes(rsaKey).suffix(64)].map { Data($0) }
        #expect(canaryHits(canaries, in: scratch.files()) == [])
        // The keys are really there: both come back whole.
        #expect(Self.find(keychain, tag: "ec").1 == ecKey)
        #expect(Self.find(keychain, tag: "rsa").1 == rsaKey)
        _ = SecKeychainDelete(keychain)
    }

    @Test("a flipped bit in a key row's sealed columns is reported, never read as a key; restoring it reads the key again")
    func tamperedKeyRow() throws {
        let scratch = try TemporaryKeychain("key-tamper")
        defer { scratch.remove() }
        let (keychain, ecKey, _) = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.directory + "/keys.keychain-db")
        let rows = try raw.execute("SELECT id FROM items WHERE class = 'keys' ORDER BY id")
        guard case .integer(let rowID)? = rows.first?.first else {
            Issue.record("no key row in the file")
            return
        }
        for column in ["payload", "wrapped_key", "pk_digest", "persistent_id"] {
            for offset in [0, 7, 20] {
                guard let original = try TamperTests.flip(raw, table: "items", column: column, rowID: rowID, offset: offset, mask: 0x01) else { continue }
                let (status, key) = Self.find(keychain, tag: "ec")
                #expect(status != errSecSuccess, "\(column)[\(offset)] altered, yet the read succeeded")
                #expect(key == nil)
                try TamperTests.restore(raw, table: "items", column: column, rowID: rowID, original)
            }
        }
        #expect(Self.find(keychain, tag: "ec").1 == ecKey)
        _ = SecKeychainDelete(keychain)
    }
}
