import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary
import KeychainItemCodec

/// The extra layer of items protected with `kSecAccessControlApplicationPassword`: their secret
/// is sealed under a key derived (scrypt) from the application password before the item is
/// stored, so the protection is cryptographic: without the password the secret cannot be
/// decrypted, even with the class key.
///
/// Layout: `"KKAP" ‖ version:u8 ‖ field(kdf parameters) ‖ AES-256-GCM(password key, data)`.
package enum ApplicationPasswordSeal {
    private static let magic = Data("KKAP".utf8)
    private static let version: UInt8 = 1
    private static let associatedData = Data("keychainkit application password v1".utf8)

    /// Seals `data` under `password`, with scrypt calibrated for this machine (N ≥ 2^16, see
    /// `PasswordKDF.calibrated()`). `testing` uses the cheap test KDF (test suites only).
    package static func seal(_ data: Data, password: Data, testing: Bool) throws(KeychainStoreError) -> Data {
        let kdf = testing ? PasswordKDF.testing() : try PasswordKDF.calibratedOncePerProcess()
        let key = try kdf.deriveKey(password: password)
        var out = magic
        out.append(version)
        out.appendField(kdf.encoded)
        out.append(try Sealing.seal(data, using: key, binding: associatedData))
        return out
    }

    /// The scrypt parameters a sealed secret records.
    static func parameters(of sealed: Data) throws(KeychainStoreError) -> PasswordKDF {
        var reader = ByteReader(record: sealed)
        guard try reader.bytes(4) == magic, try reader.byte() == version else {
            throw .undecodable("an application-password-protected secret")
        }
        return try PasswordKDF(decoding: try reader.bytes(Int(try reader.uint32())))
    }

    /// Opens a sealed secret; `.wrongPassword` if `password` is not the one it was sealed with.
    package static func open(_ sealed: Data, password: Data, allowTestingKDF: Bool) throws(KeychainStoreError) -> Data {
        var reader = ByteReader(record: sealed)
        guard try reader.bytes(4) == magic, try reader.byte() == version else {
            throw .undecodable("an application-password-protected secret")
        }
        let kdf = try PasswordKDF(decoding: try reader.bytes(Int(try reader.uint32())))
        if kdf.logN < PasswordKDF.minimumLogN && !allowTestingKDF {
            throw .undecodable("an application-password-protected secret (weak KDF)")
        }
        let box = try reader.bytes(reader.remaining)
        let key = try kdf.deriveKey(password: password)
        do {
            return try Sealing.open(box, using: key, binding: associatedData, what: "an application-password-protected secret")
        } catch {
            throw .wrongPassword
        }
    }
}
