#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// Moves a user's keychain between the embedded mode (a file of the user's) and the keychain
/// service, in either direction, losing nothing:
///
/// - every item of every class and access group, with its attributes, protection class and
///   synchronizable flag (creation and modification dates are set anew, as any add sets them);
/// - the password: a migration in creates the service keychain with the embedded keychain's
///   password; a migration out creates a missing embedded keychain with the service's;
/// - the source stays as it was: the embedded file is the backup until the user removes it;
/// - each item is one add, and an item already there is counted, not added again, so a re-run
///   after an interrupted migration completes it without duplicates.
///
/// The keychain password is checked before anything moves (a wrong one moves nothing) and is
/// the service's proof that the user asks (``ItemMigrationCalls``).
package struct ServiceMigration {
    /// What a migration did.
    package struct Summary: Sendable, Equatable {
        /// Items stored in the destination.
        package var stored = 0
        /// Items the destination already held (an earlier or interrupted run).
        package var alreadyThere = 0
    }

    /// A refused or failed migration: the cause and the fix, never a secret.
    package struct Failure: Error, CustomStringConvertible {
        /// The `OSStatus` behind it (the command's exit status), or nil for a usage error.
        package let status: Int32?
        package let description: String
    }

    /// The embedded keychain's file.
    package let embeddedPath: String
    private let embedded: ServedKeychain
    private let socketPath: String
    private let mapping: AccessGroupMapping
    private let isSecretServiceItem: ([String: Any]) -> Bool

    /// The most bytes of items one import request carries (a frame holds at most 1 MiB).
    static let batchBytes = 768 * 1024

    /// A migration between the embedded keychain at `embeddedPath` (nil: the embedded default)
    /// and the service at `socketPath`, under `configuration` (the process's), regrouped by
    /// `mapping`; `isSecretServiceItem` tells the Secret Service provider's items (its stored
    /// form, which the provider knows) from keychainctl's own in keychainctl's group.
    package init(configuration: KeychainConfiguration, embeddedPath: String?, socketPath: String, mapping: AccessGroupMapping,
                 isSecretServiceItem: @escaping ([String: Any]) -> Bool) {
        self.embeddedPath = KeychainLocation.absolute(embeddedPath ?? configuration.defaultKeychainPath)
        embedded = ServedKeychain(keychainPath: self.embeddedPath, deviceKeyPath: configuration.deviceKeyPath,
                                  authenticator: OwnerAuthenticator(pinentry: nil))
        if configuration.testingKDFRequested { embedded.registry.useTestingKDF(true) }
        self.socketPath = socketPath
        self.mapping = mapping
        self.isSecretServiceItem = isSecretServiceItem
    }

    /// The migration `configuration` (the tool's, read once by its entry point) describes: its
    /// embedded keychain (`embeddedPath`, else the embedded default), the service its
    /// `KEYCHAINKIT_SERVICE_SOCKET` (or the installed default) names, and `pairs` (`NAME=PROGRAM`)
    /// with this tool's own group mapped to this tool, and the Secret Service provider's items
    /// (`isSecretServiceItem`) in it to the Secret Service's group.
    package static func of(_ configuration: KeychainConfiguration, embeddedPath: String?, pairs: [String],
                           isSecretServiceItem: @escaping ([String: Any]) -> Bool) throws(Failure) -> ServiceMigration {
        guard let socketPath = configuration.serviceSocketPath else {
            throw Failure(status: KeychainStatus.notAvailable.rawValue,
                          description: "no keychain service: install it (sudo keychainctl service install) or set KEYCHAINKIT_SERVICE_SOCKET to its socket")
        }
        guard let ownGroup = configuration.accessGroups.groups.first else {
            throw Failure(status: nil, description: "this program has no access group of its own")
        }
        let ownProgram = try thisExecutable()
        let mapping: AccessGroupMapping
        do {
            mapping = try AccessGroupMapping(pairs: pairs, ownGroup: ownGroup, ownProgram: ownProgram)
        } catch {
            throw Failure(status: nil, description: error.description)
        }
        return ServiceMigration(configuration: configuration, embeddedPath: embeddedPath, socketPath: socketPath, mapping: mapping,
                                isSecretServiceItem: isSecretServiceItem)
    }

    /// This process's executable as the kernel names it (what the service calls this program).
    static func thisExecutable() throws(Failure) -> String {
        do {
            return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            throw Failure(status: KeychainStatus.io.rawValue, description: "cannot read /proc/self/exe to name this program: \(error)")
        }
    }

    // MARK: Into the service

    /// Copies every item of the embedded keychain into the user's service keychain.
    package func migrateIn(password: Data) throws(Failure) -> Summary {
        guard FileManager.default.fileExists(atPath: embeddedPath) else {
            throw Failure(status: KeychainStatus.noSuchKeychain.rawValue,
                          description: "there is no embedded keychain at \(embeddedPath) to migrate (-k names another)")
        }
        try unlockEmbedded(password: password, creating: false)
        let items = try readEmbedded()
        let unmapped = mapping.unmapped(items.map(MigratedItems.accessGroup))
        guard unmapped.isEmpty else {
            throw Failure(status: nil, description: AccessGroupMapping.unmappedSentence(unmapped, direction: "and run migrate-in again"))
        }
        var batches: [[WireValue]] = [[]]
        var bytes = 0
        for var item in items {
            item["agrp"] = mapping.serviceGroup(of: MigratedItems.accessGroup(of: item), isSecretServiceItem: isSecretServiceItem(item))
            guard let wire = WireValue(item) else {
                throw Failure(status: KeychainStatus.unimplemented.rawValue,
                              description: "an item\(MigratedItems.name(of: item)) holds a value that cannot be sent to the service; nothing was moved")
            }
            var encoded = Data()
            WireEncoding.append(wire, to: &encoded)
            if bytes + encoded.count > Self.batchBytes && !(batches.last ?? []).isEmpty {
                batches.append([])
                bytes = 0
            }
            batches[batches.count - 1].append(wire)
            bytes += encoded.count
        }
        var summary = Summary()
        // Even an empty keychain makes one call: it proves the password and creates the service keychain.
        for batch in batches {
            let reply = try send(.importItems, [WireEntry(key: ServiceRequest.passwordKey, value: .data(password)),
                                                WireEntry(key: ServiceRequest.itemsKey, value: .array(batch))])
            if case .dictionary(let entries)? = reply.result {
                let counts = WireEntry.dictionary(entries)
                summary.stored += ReplyNumber.int64(counts["imported"]).map { Int(truncatingIfNeeded: $0) } ?? 0
                summary.alreadyThere += ReplyNumber.int64(counts["present"]).map { Int(truncatingIfNeeded: $0) } ?? 0
            }
        }
        return summary
    }

    // MARK: Out of the service

    /// Copies every item of the user's service keychain into the embedded keychain (created with
    /// the same password when missing).
    package func migrateOut(password: Data) throws(Failure) -> Summary {
        var items: [[String: Any]] = []
        var more = true
        while more {
            let reply = try send(.exportItems, [WireEntry(key: ServiceRequest.passwordKey, value: .data(password)),
                                                WireEntry(key: ServiceRequest.skipKey, value: .integer(Int64(items.count)))])
            guard case .dictionary(let entries)? = reply.result, let page = WireEntry.dictionary(entries)[ServiceRequest.itemsKey] as? [Any] else {
                throw Failure(status: KeychainStatus.decode.rawValue, description: "the service's export reply holds no items")
            }
            let pageItems = page.compactMap { $0 as? [String: Any] }
            more = WireEntry.dictionary(entries)["more"] as? Bool ?? false
            if more && pageItems.isEmpty {
                throw Failure(status: KeychainStatus.decode.rawValue, description: "the service's export made no progress")
            }
            items += pageItems
        }
        let inverse: [String: String]
        do { inverse = try mapping.embeddedGroups() } catch { throw Failure(status: nil, description: error.description) }
        let unmapped = mapping.unmappedServiceGroups(items.map(MigratedItems.accessGroup))
        guard unmapped.isEmpty else {
            throw Failure(status: nil, description: AccessGroupMapping.unmappedSentence(unmapped, direction: "(NAME: the group it gets in the embedded keychain) and run migrate-out again"))
        }
        try unlockEmbedded(password: password, creating: true)
        let engine = try embeddedEngine(creating: true)
        var summary = Summary()
        for var item in items {
            item["agrp"] = inverse[MigratedItems.accessGroup(of: item)]
            let outcome = engine.add(item)
            switch outcome.status {
            case KeychainStatus.success.rawValue: summary.stored += 1
            case KeychainStatus.duplicateItem.rawValue: summary.alreadyThere += 1
            default:
                throw Failure(status: outcome.status, description: "an item\(MigratedItems.name(of: item)) was not stored in \(embeddedPath) "
                              + "(\(outcome.failure.map { "\($0)" } ?? "status \(outcome.status)")); \(summary.stored) stored before it. "
                              + "Nothing is lost: the service keeps every item; run migrate-out again once the cause is fixed")
            }
        }
        return summary
    }

    // MARK: The embedded keychain

    private func unlockEmbedded(password: Data, creating: Bool) throws(Failure) {
        let lifecycle = KeychainLifecycle(registry: embedded.registry)
        let what = "the embedded keychain \(embeddedPath)"
        if creating && !FileManager.default.fileExists(atPath: embeddedPath) {
            do { try lifecycle.create(at: embeddedPath, password: password) } catch { throw Self.failure(error, what: what) }
            return
        }
        let hasPassword: Bool
        do {
            let database = try lifecycle.existingKeychain(embeddedPath)
            do { hasPassword = try database.status.hasPassword } catch { throw KeychainCallFailure(status: error.osStatus, failure: error) }
        } catch {
            throw Self.failure(error, what: what)
        }
        guard hasPassword else {
            throw Failure(status: KeychainStatus.authFailed.rawValue,
                          description: "\(what) has no password; a migration keeps the password and proves it is you with it: "
                          + "give it one first (KEYCHAINKIT_SERVICE_SOCKET=off keychainctl set-keychain-password)")
        }
        do { try lifecycle.unlock(embeddedPath, password: password) } catch { throw Self.failure(error, what: what) }
    }

    private func embeddedEngine(creating: Bool) throws(Failure) -> SecItemEngine {
        do {
            return try embedded.engine(accessGroups: AccessGroups(["*"]), creatingKeychain: creating)
        } catch {
            throw Self.failure(error, what: "the embedded keychain \(embeddedPath)")
        }
    }

    private func readEmbedded() throws(Failure) -> [[String: Any]] {
        let engine = try embeddedEngine(creating: false)
        do {
            return try MigratedItems.read(from: engine)
        } catch {
            throw Self.failure(error, what: "the embedded keychain \(embeddedPath)")
        }
    }

    // MARK: The service

    private func send(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) throws(Failure) -> ServiceReply {
        let reply: ServiceReply
        do {
            reply = try ServiceClient.send(ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                                          query: query), to: socketPath)
        } catch {
            throw Failure(status: KeychainStatus.notAvailable.rawValue,
                          description: "the keychain service at \(socketPath) did not answer (\(error)); nothing more was moved")
        }
        guard reply.status == 0 else {
            let words = reply.status == KeychainStatus.authFailed.rawValue && reply.failureReason == nil
                ? "wrong keychain password" : (reply.failureReason ?? "status \(reply.status)")
            throw Failure(status: reply.status, description: "the keychain service refused: \(words)")
        }
        return reply
    }

    /// A failure of the engine or lifecycle as words with the keychain named.
    private static func failure(_ error: any Error, what: String) -> Failure {
        if let call = error as? KeychainCallFailure {
            if call.status == KeychainStatus.authFailed.rawValue {
                return Failure(status: call.status, description: "wrong password for \(what): nothing was moved")
            }
            return Failure(status: call.status, description: "\(what): \(call.failure.map { "\($0)" } ?? "status \(call.status)")")
        }
        if let store = error as? KeychainStoreError { return Failure(status: store.osStatus, description: "\(what): \(store)") }
        if let refusal = error as? MigratedItems.Refusal { return Failure(status: KeychainStatus.param.rawValue, description: "\(what): \(refusal)") }
        return Failure(status: nil, description: "\(what): \(error)")
    }
}
