// How the SecKey functions report failure: Apple fills a `CFError` out-parameter in the
// OSStatus domain whose code is the `errSec…` status and whose description says what failed.
// Messages name the operation and the algorithm, never key bytes or data.

import Foundation

/// A failed SecKey operation: Apple's status code and a message for the `CFError`.
struct SecKeyFailure: Error {
    let status: OSStatus
    let message: String

    /// `errSecParam` (-50): bad input (malformed key data, wrong digest length, bad parameters).
    static func parameter(_ message: String) -> SecKeyFailure { SecKeyFailure(status: errSecParam, message: message) }

    /// `errSecParam` (-50): the key cannot perform this algorithm: another key type, or the
    /// wrong half (signing or decrypting with a public key, verifying or encrypting with a
    /// private one). Apple's code and wording ("algorithm not supported by the key",
    /// SecKeyRunAlgorithmAndCopyResult in OSX/sec/Security/SecKey.m).
    static func unsupported(_ algorithm: SecKeyAlgorithm, _ key: SecKey) -> SecKeyFailure {
        SecKeyFailure(status: errSecParam, message: "\(algorithm.rawValue): algorithm not supported by the key \(key)")
    }

    /// `errSecUnimplemented` (-4): an algorithm this implementation does not perform for any
    /// key (docs/APPLE-API.md, "SecKey", lists them), or a name that is no algorithm.
    static func unimplemented(_ algorithm: SecKeyAlgorithm) -> SecKeyFailure {
        SecKeyFailure(status: errSecUnimplemented, message: "\(algorithm.rawValue): algorithm not implemented")
    }

    /// `errSecVerifyFailed` (-67808): the signature does not match.
    static func verification(_ what: String) -> SecKeyFailure {
        SecKeyFailure(status: errSecVerifyFailed, message: "\(what) signature verification failed, no match")
    }

    /// The `CFError` Apple would return: OSStatus domain, the status as code, the message under
    /// Apple's `NSDescription` key (and Foundation's localized-description key, so that
    /// `localizedDescription` shows it on Linux too).
    var cfError: CFError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status),
                userInfo: ["NSDescription": message, NSLocalizedDescriptionKey: message])
    }
}

/// Runs `body`; on failure stores Apple's `CFError` in `error` (when given) and returns nil.
func reportingSecKeyFailure<T>(
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws(SecKeyFailure) -> T
) -> T? {
    do {
        return try body()
    } catch {
        errorOut?.pointee = Unmanaged.passRetained(error.cfError)
        return nil
    }
}
