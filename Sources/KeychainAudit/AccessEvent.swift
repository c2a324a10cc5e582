#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// One access to a secret, as the access log records it: who (the caller's executable and its
/// parent chain), what (the item's non-secret names), how (the operation and the channel it came
/// through) and what was decided. Never the secret.
package struct AccessEvent: Sendable, Equatable {
    /// What was done to the item.
    package enum Operation: String, Sendable, Codable, CaseIterable {
        /// The secret was read (or a read was refused: see ``AccessEvent/decision``).
        case read
        /// An item was created.
        case create
        /// An item's secret or attributes were changed.
        case update
        /// An item was deleted.
        case delete
        /// Sync wrote another device's version of the item into this keychain (``AccessEvent/peer``).
        case syncPull = "sync-pull"
        /// Sync deleted the item here because another device deleted it (``AccessEvent/peer``).
        case syncPullDelete = "sync-pull-delete"
        /// Sync read the item's secret to publish it, sealed, to the other devices of its circle.
        case syncPublish = "sync-publish"
        /// `sync restore` wrote an earlier version of the item back into this keychain, as a new
        /// change (``AccessEvent/peer``: the device whose version it was).
        case syncRestore = "sync-restore"
        /// A token-bound key held by the keychain service signed or made a shared secret for the
        /// caller (its private bytes stayed in the service).
        case keyUse = "key-use"
    }

    /// The way the request reached the keychain.
    package enum Channel: String, Sendable, Codable, CaseIterable {
        /// A D-Bus client of the Secret Service provider (`keychainctl secret-service`).
        case secretService = "secret-service"
        /// A `keychainctl` command run by the user (or a script).
        case keychainctl
        /// `keychainctl git-credential`, run by git.
        case gitCredentialHelper = "git-credential"
        /// `docker-credential-keychainkit`, run by Docker.
        case dockerCredentialHelper = "docker-credential"
        /// A SecItem call through the keychain service, from the program it verified
        /// (``AccessEvent/application``).
        case keychainService = "keychain-service"
    }

    /// What the access policy decided.
    package enum Decision: String, Sendable, Codable, CaseIterable {
        /// Allowed: the caller is on the item's list of trusted applications, or it made the item.
        case trusted
        /// Allowed by the `allow` policy although the caller is not on the item's list (logged so the
        /// user can see who reads what).
        case allowedByPolicy = "allowed-by-policy"
        /// Allowed this once by the user at a prompt.
        case confirmedOnce = "confirmed-once"
        /// Allowed by the user at a prompt, and the caller added to the item's list.
        case confirmedAlways = "confirmed-always"
        /// Refused by the user at a prompt, or because no prompt could be shown.
        case deniedByUser = "denied-by-user"
        /// Refused by the `deny` policy.
        case deniedByPolicy = "denied-by-policy"
        /// Not subject to per-application access (a channel the user drives directly, e.g. keychainctl).
        case notApplicable = "not-applicable"
    }

    /// The item's non-secret names, as the user knows it.
    package struct Item: Sendable, Equatable {
        /// The item's label (`kSecAttrLabel`), if it has one.
        package var label: String?
        /// The service (`kSecAttrService`) or server (`kSecAttrServer`), if it has one.
        package var service: String?
        /// The account (`kSecAttrAccount`), if it has one.
        package var account: String?

        /// Creates an item description.
        package init(label: String?, service: String?, account: String?) {
            self.label = label
            self.service = service
            self.account = account
        }
    }

    /// When the access happened.
    package var time: Date
    /// What was done.
    package var operation: Operation
    /// Which item.
    package var item: Item
    /// Who asked: the calling process and its parents (for the Secret Service, the D-Bus peer's
    /// process as the bus reports it).
    package var caller: ProcessLineage
    /// The caller's user id (as the bus or the kernel reports it).
    package var callerUID: UInt32
    /// Through what.
    package var channel: Channel
    /// What was decided.
    package var decision: Decision
    /// The keychain file the item is in, when the recorder serves several (the provider's
    /// collections): ``KeychainAccessLogs`` records the event in that keychain's log. Nil: the
    /// recorder's own keychain. Not stored in the entry (each log is about one keychain).
    package var keychainPath: String?
    /// For a sync access, the device of the circle whose version it was (its id, 32 hex digits):
    /// the writer of a version pulled, this device for a publish. Nil otherwise.
    package var peer: String?
    /// For an access through the keychain service, the caller's application identifier as the
    /// service verified it (its executable's path, with the content's digest when unverifiable),
    /// never what the caller claimed. Nil otherwise.
    package var application: String?
    /// For an access a front end made through the keychain service for a client of its own (the
    /// Secret Service provider for a D-Bus client), the front end's executable as the service
    /// verified it; ``caller`` and ``application`` are then the client's. Nil otherwise.
    package var provider: String?

    /// Creates an event.
    package init(time: Date, operation: Operation, item: Item, caller: ProcessLineage, callerUID: UInt32,
                 channel: Channel, decision: Decision, keychainPath: String? = nil, peer: String? = nil, application: String? = nil,
                 provider: String? = nil) {
        self.provider = provider
        self.keychainPath = keychainPath
        self.peer = peer
        self.application = application
        self.time = time
        self.operation = operation
        self.item = item
        self.caller = caller
        self.callerUID = callerUID
        self.channel = channel
        self.decision = decision
    }
}
