// Small helpers for the SecKey tests (hex is KeychainTestSupport's): key creation that fails the test on error, and
// reading the CFError out-parameter the way Apple code does.

import Foundation
import KeychainTestSupport
import KeychainServices
import Testing

/// A result and the CFError Apple's out-parameter convention returned with it.
struct Outcome<T> {
    let value: T?
    let error: CFError?

    var code: Int? { error.map { CFErrorGetCode($0) } }
}

/// Calls an Apple-style function taking an error out-parameter.
func capture<T>(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> T?) -> Outcome<T> {
    var error: Unmanaged<CFError>?
    let value = body(&error)
    return Outcome(value: value, error: error?.takeRetainedValue())
}

/// A new random key of `type` and `bits`; records an issue and returns nil on failure.
func randomKey(_ type: CFString, _ bits: Int, extra: [CFString: Any] = [:]) throws -> SecKey {
    var parameters: [CFString: Any] = [kSecAttrKeyType: type, kSecAttrKeySizeInBits: bits]
    parameters.merge(extra) { $1 }
    let outcome = capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
    return try #require(outcome.value, "SecKeyCreateRandomKey failed: \(String(describing: outcome.error))")
}

/// Imports Apple's external representation of a key.
func importKey(_ data: Data, type: CFString, privateClass: Bool) -> Outcome<SecKey> {
    let attributes: [CFString: Any] = [
        kSecAttrKeyType: type,
        kSecAttrKeyClass: privateClass ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
    ]
    return capture { SecKeyCreateWithData(data as CFData, attributes as CFDictionary, $0) }
}

func externalRepresentation(_ key: SecKey) throws -> Data {
    let outcome = capture { SecKeyCopyExternalRepresentation(key, $0) }
    return try #require(outcome.value as Data?)
}

func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> Outcome<Data> {
    let outcome = capture { SecKeyCreateSignature(key, algorithm, data as CFData, $0) }
    return Outcome(value: outcome.value as Data?, error: outcome.error)
}

func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data, _ signature: Data) -> Outcome<Bool> {
    capture { error -> Bool? in
        SecKeyVerifySignature(key, algorithm, data as CFData, signature as CFData, error)
    }
}

func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> Outcome<Data> {
    let outcome = capture { SecKeyCreateEncryptedData(key, algorithm, data as CFData, $0) }
    return Outcome(value: outcome.value as Data?, error: outcome.error)
}

func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> Outcome<Data> {
    let outcome = capture { SecKeyCreateDecryptedData(key, algorithm, data as CFData, $0) }
    return Outcome(value: outcome.value as Data?, error: outcome.error)
}
