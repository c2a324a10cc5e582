// Typed signing and agreement keys over SecKey key items: load-or-create, rotation, removal,
// and signatures/secrets checked with swift-crypto as the independent party.

import Crypto
import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

@Suite struct PrivateKeyTests {
    @Test func signingKeyIsCreatedOnceAndSignsVerifiably() throws {
        let keychain = try isolatedKeychain()
        #expect(try keychain.signingKey(tag: "com.example.signing") == nil)
        let key = try keychain.loadOrCreateSigningKey(tag: "com.example.signing")
        let again = try keychain.loadOrCreateSigningKey(tag: "com.example.signing")
        #expect(try again.publicKeyX963Representation() == key.publicKeyX963Representation(), "the stored key is reused")

        let message = Data("sign me".utf8)
        let signature = try key.signature(for: message)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(signature, for: message + Data([0])))
        // swift-crypto, given only the public key, accepts the signature.
        let verifier = try P256.Signing.PublicKey(x963Representation: try key.publicKeyX963Representation())
        #expect(verifier.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: signature), for: message))
        #expect(!"\(key)".contains(try key.publicKeyX963Representation().base64EncodedString().prefix(12)))
    }

    @Test func rotationKeepsThePreviousKeyUntilRemoved() throws {
        let keychain = try isolatedKeychain()
        let first = try keychain.loadOrCreateSigningKey(tag: "rotating")
        let rotation = try keychain.rotateSigningKey(tag: "rotating")
        let previous = try #require(rotation.previous)
        #expect(try previous.publicKeyX963Representation() == first.publicKeyX963Representation())
        #expect(try rotation.current.publicKeyX963Representation() != first.publicKeyX963Representation())
        #expect(try keychain.signingKey(tag: "rotating")?.publicKeyX963Representation() == rotation.current.publicKeyX963Representation())
        #expect(try keychain.signingKey(tag: "rotating.previous")?.publicKeyX963Representation() == first.publicKeyX963Representation())
        // A second rotation replaces the kept key.
        let second = try keychain.rotateSigningKey(tag: "rotating")
        #expect(try second.previous?.publicKeyX963Representation() == rotation.current.publicKeyX963Representation())
        #expect(try keychain.removePrivateKey(tag: "rotating.previous"))
        #expect(try keychain.signingKey(tag: "rotating.previous") == nil)
        #expect(try keychain.removePrivateKey(tag: "rotating"))
        #expect(try !keychain.removePrivateKey(tag: "rotating"))
    }

    @Test func agreementKeyDerivesTheSameSecretAsTheOtherParty() throws {
        let keychain = try isolatedKeychain()
        let ours = try keychain.loadOrCreateAgreementKey(tag: "com.example.agreement")
        let theirs = P256.KeyAgreement.PrivateKey()
        let info = Data("session".utf8)
        let shared = try ours.sharedKey(with: theirs.publicKey.x963Representation, sharedInfo: info, byteCount: 32)
        let expected = try theirs.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(x963Representation: try ours.publicKeyX963Representation()))
            .x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: info, outputByteCount: 32)
        #expect(shared == expected)
        #expect(throws: KeychainError.self) { try ours.sharedKey(with: Data([4, 1, 2])) }
    }

    @Test func emptyTagIsRejected() throws {
        let keychain = try isolatedKeychain()
        #expect(throws: KeychainError.self) { try keychain.loadOrCreateSigningKey(tag: "") }
    }
}
