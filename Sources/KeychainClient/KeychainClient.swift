#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainVocabulary

/// Apple's four SecItem calls on Swift dictionaries, for the tools: keys as Apple's strings
/// (``SecItemKey``: `"class"`, `"acct"`, `"v_Data"`, …), results as Swift values (`Data`,
/// `[String: Any]`, `[[String: Any]]`, persistent references as `Data`, access control as
/// `AccessControlPolicy`), the same statuses as `SecItemAdd` and the others, and the same record
/// of each failure's cause for this thread (``failureReason(for:)``). Each call goes where
/// ``ItemCallRoute`` says: the keychain service when one is configured, else the embedded engine.
///
/// Apple's API (KeychainServicesPortable) bridges its CF dictionaries onto the same route, so a
/// program that uses both sees one keychain. Keys, certificates and identities as objects
/// (`SecKey`, …) stay Apple's API's: this client serves the password classes and any item as
/// attributes and data.
package enum KeychainClient {
    /// The keychain a call works on.
    package enum Keychain: Equatable, Sendable {
        /// The default keychain (the login keychain the service serves, when it is in use).
        case defaultKeychain
        /// The keychain file at this path (Apple's `kSecUseKeychain`).
        case file(path: String)

        var itemKeychain: KeychainLifecycle.ItemKeychain {
            switch self {
            case .defaultKeychain: .defaultKeychain
            case .file(let path): .named(path: path)
            }
        }
    }

    /// `SecItemAdd`: the status and, on success, the result the attributes' `kSecReturn…` keys ask for.
    package static func add(_ attributes: [String: Any], in keychain: Keychain = .defaultKeychain) -> (status: Int32, result: Any?) {
        call(.add, attributes, in: keychain)
    }

    /// `SecItemCopyMatching`: the status and, on success, the result (nil when the call fails).
    package static func copyMatching(_ query: [String: Any], in keychain: Keychain = .defaultKeychain) -> (status: Int32, result: Any?) {
        call(.copyMatching, query, in: keychain)
    }

    /// `SecItemUpdate`: the status.
    package static func update(_ query: [String: Any], _ changes: [String: Any], in keychain: Keychain = .defaultKeychain) -> Int32 {
        call(.update, query, changes: changes, in: keychain).status
    }

    /// `SecItemDelete`: the status.
    package static func delete(_ query: [String: Any], in keychain: Keychain = .defaultKeychain) -> Int32 {
        call(.delete, query, in: keychain).status
    }

    /// The path of the default keychain (`SecKeychainCopyDefault`'s).
    package static var defaultKeychainPath: String {
        ProcessKeychains.registry.defaultKeychainPath
    }

    /// The cause and the fix of the last failed call on this thread, if it returned `status` and
    /// the keychain knew more than the status says (`KeychainFailureDetails.reason(for:)`'s).
    package static func failureReason(for status: Int32) -> String? {
        FailureReport.lastFailure(status: status)?.explanation
    }

    /// The outcome's status, after recording for this thread what a status cannot say: the
    /// failure's reason and the count of unreadable items a read left out.
    package static func report(_ outcome: SecItemResult) -> Int32 {
        if let failure = outcome.failure { FailureReport.fail(failure) }
        FailureReport.skippedUnreadable(outcome.unreadableItems, first: outcome.firstUnreadableItem)
        return outcome.status
    }

    private static func call(_ operation: ItemOperation, _ query: [String: Any], changes: [String: Any] = [:],
                             in keychain: Keychain) -> (status: Int32, result: Any?) {
        FailureReport.beginCall()
        let outcome = ItemEdge.swift.perform(operation, query, changes: changes, in: keychain.itemKeychain)
        let status = report(outcome)
        return (status, status == KeychainStatus.success.rawValue ? outcome.value : nil)
    }
}
