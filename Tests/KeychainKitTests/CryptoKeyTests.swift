import Crypto
import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

@Suite struct CryptoKeyTests {
    @Test func symmetricKeysRoundTrip() throws {
        let keychain = try isolatedKeychain()
        let key = SymmetricKey(size: .bits256)
        try keychain.setKey(key, forKey: "db-key")

        let loaded = try #require(try keychain.key(SymmetricKey.self, forKey: "db-key"))
        #expect(loaded == key)
        let sealed = try AES.GCM.seal(Data("payload".utf8), using: key)
        #expect(try AES.GCM.open(sealed, using: loaded) == Data("payload".utf8))
    }

    @Test func curve25519KeysRoundTrip() throws {
        let keychain = try isolatedKeychain()
        let signing = Curve25519.Signing.PrivateKey()
        let agreement = Curve25519.KeyAgreement.PrivateKey()
        try keychain.setKey(signing, forKey: "signing")
        try keychain.setKey(agreement, forKey: "agreement")

        let loadedSigning = try #require(try keychain.key(Curve25519.Signing.PrivateKey.self, forKey: "signing"))
        let loadedAgreement = try #require(try keychain.key(Curve25519.KeyAgreement.PrivateKey.self, forKey: "agreement"))
        #expect(loadedSigning.rawRepresentation == signing.rawRepresentation)
        #expect(loadedAgreement.publicKey.rawRepresentation == agreement.publicKey.rawRepresentation)
        let signature = try loadedSigning.signature(for: Data("message".utf8))
        #expect(signing.publicKey.isValidSignature(signature, for: Data("message".utf8)))
    }

    @Test func p256KeysRoundTripThroughTheirX963Representation() throws {
        let keychain = try isolatedKeychain()
        let signing = P256.Signing.PrivateKey()
        let agreement = P256.KeyAgreement.PrivateKey()
        try keychain.setKey(signing, forKey: "signing")
        try keychain.setKey(agreement, forKey: "agreement")

        #expect(try keychain.data(forKey: "signing") == signing.x963Representation)
        let loadedSigning = try #require(try keychain.key(P256.Signing.PrivateKey.self, forKey: "signing"))
        let loadedAgreement = try #require(try keychain.key(P256.KeyAgreement.PrivateKey.self, forKey: "agreement"))
        #expect(loadedSigning.rawRepresentation == signing.rawRepresentation)
        let peer = P256.KeyAgreement.PrivateKey()
        let ours = try loadedAgreement.sharedSecretFromKeyAgreement(with: peer.publicKey)
        let theirs = try peer.sharedSecretFromKeyAgreement(with: agreement.publicKey)
        #expect(ours == theirs)
    }

    @Test func aMissingKeyIsNilAndGarbageIsADecodingFailure() throws {
        let keychain = try isolatedKeychain()
        #expect(try keychain.key(P256.Signing.PrivateKey.self, forKey: "none") == nil)
        try keychain.set(Data([1, 2, 3]), forKey: "garbage")
        #expect(throws: KeychainError.decodingFailed) { try keychain.key(P256.Signing.PrivateKey.self, forKey: "garbage") }
        #expect(throws: KeychainError.decodingFailed) { try keychain.key(Curve25519.Signing.PrivateKey.self, forKey: "garbage") }
    }

    @Test func loadOrCreateCreatesOnceThenLoads() throws {
        let keychain = try isolatedKeychain()
        let created = try keychain.loadOrCreateKey(Curve25519.Signing.PrivateKey.self, forKey: "identity")
        let loaded = try keychain.loadOrCreateKey(Curve25519.Signing.PrivateKey.self, forKey: "identity")
        #expect(created.rawRepresentation == loaded.rawRepresentation)
        #expect(try keychain.allKeys() == ["identity"])
    }

    @Test func concurrentLoadOrCreateAgreesOnOneKey() async throws {
        let keychain = try isolatedKeychain()
        let keys = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await keychain.async.run { keychain throws(KeychainError) in
                        try keychain.loadOrCreateKey(SymmetricKey.self, forKey: "shared").keychainRepresentation
                    }
                }
            }
            return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(try keychain.key(SymmetricKey.self, forKey: "shared")?.keychainRepresentation == keys.first)
    }

    @Test func rotationKeepsThePreviousKeyUntilRemoved() throws {
        let keychain = try isolatedKeychain()
        let first = try keychain.rotateKey(SymmetricKey.self, forKey: "k")
        #expect(first.previous == nil)
        #expect(try keychain.previousKey(SymmetricKey.self, forKey: "k") == nil)

        let second = try keychain.rotateKey(SymmetricKey.self, forKey: "k")
        #expect(second.previous == first.current)
        #expect(second.current != first.current)
        #expect(try keychain.key(SymmetricKey.self, forKey: "k") == second.current)
        #expect(try keychain.previousKey(SymmetricKey.self, forKey: "k") == first.current)
        #expect(try keychain.allKeys() == ["k", "k.previous"])

        #expect(try keychain.removePreviousKey(forKey: "k"))
        #expect(try keychain.previousKey(SymmetricKey.self, forKey: "k") == nil)
        #expect(try keychain.key(SymmetricKey.self, forKey: "k") == second.current)
    }
}
