// `.privateKeyUsage` keys: on Apple platforms the access control of such a key guards each
// operation with its private key, not the lookup that returns the key reference. The engine
// therefore returns these key items without authentication when asked to defer
// (`copyMatching(_:deferringPrivateKeyUsage:)`), and the key reference built from them calls
// `authorizePrivateKeyUse` before every signature, decryption and key exchange.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

extension AccessControlPolicy {
    /// Whether constraints guard the use of the private key rather than the reading of it:
    /// `.privateKeyUsage` with a constraint, but no application password (that seals the key
    /// bytes themselves, so they can only be read with the password).
    package var defersToPrivateKeyUse: Bool {
        hasConstraints && flags & AccessControlPolicy.privateKeyUsage != 0 && flags & AccessControlPolicy.applicationPassword == 0
    }
}

extension SecItemEngine {
    /// Satisfies the access control of the key item `persistentReference` names, as one
    /// private-key operation needs: the passcode, a finger or user presence, asked for through
    /// `context` (an evaluated context is reused without a prompt, as Apple reuses the
    /// `kSecUseAuthenticationContext` given at lookup). Reads no secret. Succeeds, or fails with
    /// the authentication failure (-128, -25293, -25308), or `errSecItemNotFound` when the
    /// item is gone.
    package func authorizePrivateKeyUse(persistentReference: Data, context: AuthenticationContextConvertible?) -> SecItemResult {
        run { () throws(KeychainStoreError) -> Any? in
            var query: [String: Any] = ["v_PersistentRef": persistentReference, "r_Attributes": true]
            if let context { query["u_AuthCtx"] = context }
            let request = try RequestParser.parse(query, mode: .copyMatching)
            guard request.itemClass == .key else { throw ParameterRefusal.request("the persistent reference names no key item") }
            let itemQuery = try makeQuery(request, writing: false)
            let items = try database.find(itemQuery, decrypt: true)
            guard let item = items.first else { throw KeychainStoreError.itemNotFound }
            let gate = AccessControlGate(database: database, authenticator: authenticator, request: request)
            do throws(OwnerAuthenticationFailure) {
                try gate.authorizeUse(of: item)
            } catch {
                throw KeychainStoreError(status: error.status)
            }
            return nil
        }
    }
}
