#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// The Secret Service's per-application policy (`allow`, `confirm` or `deny`) that the keychain
/// service keeps for the calling user, read by the provider for what it decides itself (its
/// in-memory `session` collection): with the service, the user sets it there
/// (`keychainctl app-access policy`, with the keychain password), not in the keychain.
package enum SecretServicePolicyRoute {
    /// Why the policy could not be read: the service's status and reason.
    package struct Failure: Error, CustomStringConvertible {
        /// The `OSStatus` the service (or the failed connection) gave.
        package var status: Int32
        /// What went wrong, for the user.
        package var description: String
    }

    /// The policy in the service at `socket` for the caller's uid.
    /// - Throws: ``Failure`` when the service does not answer, refuses, or names no policy it knows
    ///   (never read as a looser one).
    package static func policy(socket: String) throws(Failure) -> String {
        let reply: ServiceReply
        do {
            reply = try ServiceKeychainCall.reply(to: .readSecretServiceAccess, [], socket: socket)
        } catch {
            throw Failure(status: error.status, description: error.failure.map { String(describing: $0) }
                          ?? "the keychain service refused to read the Secret Service's policy (\(error.status))")
        }
        guard case .dictionary(let entries)? = reply.result,
              let policy = WireEntry.dictionary(entries)[SecretServiceAccessRequest.policyKey] as? String,
              ["allow", "confirm", "deny"].contains(policy) else {
            throw Failure(status: KeychainStatus.decode.rawValue,
                          description: "the keychain service sent a Secret Service policy this provider does not read")
        }
        return policy
    }
}
