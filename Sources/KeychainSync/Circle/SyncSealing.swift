import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// AES-256-GCM with associated data, and the small binary helpers the sync formats share.
enum SyncSealing {
    /// nonce ‖ ciphertext ‖ tag.
    static func seal(_ plaintext: Data, using key: SymmetricKey, binding aad: Data) throws(SyncError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: aad).combined else {
                throw SyncError.tampered("a sealed value")
            }
            return combined
        } catch {
            throw .tampered("a value that could not be sealed")
        }
    }

    /// Opens what `seal` made; `.tampered(what)` if anything was altered or the key is wrong.
    static func open(_ sealed: Data, using key: SymmetricKey, binding aad: Data, what: String) throws(SyncError) -> Data {
        do {
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: aad)
        } catch {
            throw .tampered(what)
        }
    }

    static func derive(_ key: SymmetricKey, salt: Data, _ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: Data("keychainkit-sync-\(purpose)".utf8), outputByteCount: 32)
    }

    static func bytes(of key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }
}

extension ByteReader where Failure == SyncError {
    /// A reader of one of the sync formats (records, key wraps, key bundles, member lists, join
    /// requests), which arrive from the transport: reading past their end is tampering.
    init(_ data: Data) {
        self.init(data, truncated: .tampered("a record of the wrong length"))
    }
}
