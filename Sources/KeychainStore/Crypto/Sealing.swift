import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// AES-256-GCM with a random 96-bit nonce per message, stored as nonce ‖ ciphertext ‖ tag.
/// A fresh random key is used for each item, so nonce reuse under one key cannot happen in
/// practice; class keys wrap at most a few hundred thousand item keys, far below the 2^32
/// random-nonce bound.
enum Sealing {
    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    static func seal(_ plaintext: Data, using key: SymmetricKey, binding associatedData: Data) throws(KeychainStoreError) -> Data {
        try seal(plaintext, using: key, nonce: AES.GCM.Nonce(), binding: associatedData)  // a fresh random nonce
    }

    /// `seal(_:using:binding:)` with a nonce the caller drew (`SealRandomness`).
    static func seal(_ plaintext: Data, using key: SymmetricKey, nonce: AES.GCM.Nonce,
                     binding associatedData: Data) throws(KeychainStoreError) -> Data {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: associatedData)
            guard let combined = box.combined else { throw KeychainStoreError.internalFailure("AES-GCM combined form") }
            return combined
        } catch let error as KeychainStoreError {
            throw error
        } catch {
            throw .internalFailure("AES-GCM seal failed")
        }
    }

    /// Decrypts `sealed`, failing with `.undecodable` unless it is intact and bound to `associatedData`.
    static func open(_ sealed: Data, using key: SymmetricKey, binding associatedData: Data, what: String) throws(KeychainStoreError) -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key, authenticating: associatedData)
        } catch {
            throw .undecodable(what)
        }
    }

    /// `open` with the associated data borrowed from a buffer (no `Data` made of it).
    static func open(_ sealed: Data, using key: SymmetricKey, binding associatedData: UnsafeRawBufferPointer,
                     what: String) throws(KeychainStoreError) -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key, authenticating: associatedData)
        } catch {
            throw .undecodable(what)
        }
    }

    /// Whether two byte strings are equal, in a time that depends on their lengths (public) and
    /// never on the position of the first difference: for verifiers, check values and tags.
    @inline(never)
    static func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    /// Overwrites a buffer that held key material or plaintext before it is released. Swift
    /// cannot promise that no other copy exists (see docs/RELIABILITY.md, "Secret hygiene, constant time, memory").
    static func zero(_ bytes: inout Data) {
        bytes.resetBytes(in: 0..<bytes.count)
    }

    /// A new random 256-bit key.
    static func randomKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// The key's bytes (for wrapping under another key). Callers keep the copy short-lived.
    static func bytes(of key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }

    /// A key derived from input keying material with HKDF-SHA256, bound to a purpose label.
    static func derive(from material: SymmetricKey, salt: Data, purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: material, salt: salt, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// Random bytes from the system generator.
    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
