// The per-operation access-control check of a stored key with `.privateKeyUsage`, as on Apple
// platforms: the lookup returns the key reference freely; each signature, decryption and key
// exchange first satisfies the item's constraints (passcode, finger, user presence) through the
// `kSecUseAuthenticationContext` given at lookup, which an evaluated context satisfies without
// a prompt.

import Foundation
import KeychainEngine

/// Checks the access control of one key item before each use of its private key.
final class PrivateKeyUseGuard: @unchecked Sendable {
    // @unchecked: every property is immutable; the context is a thread-safe LAContext.
    private let engine: SecItemEngine
    private let persistentReference: Data
    private let context: AuthenticationContextConvertible?

    init(engine: SecItemEngine, persistentReference: Data, context: AuthenticationContextConvertible?) {
        self.engine = engine
        self.persistentReference = persistentReference
        self.context = context
    }

    /// Satisfies the item's constraints, or throws the authentication failure as the
    /// operation's error (-128 cancelled, -25293 failed, -25308 no prompt allowed).
    func authorize() throws(SecKeyFailure) {
        let status = engine.authorizePrivateKeyUse(persistentReference: persistentReference, context: context).status
        guard status == errSecSuccess else {
            throw SecKeyFailure(status: status, message: "the access control of the private key was not satisfied")
        }
    }
}
