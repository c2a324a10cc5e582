#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The Secret Service's per-application access as the service keeps it, one record per user
/// (`STATE/<uid>/secret-service-access.json`, mode 0600, owned by the service's user): the policy
/// for applications not on an item's list, and each item's list — the application that created it
/// and the applications the user allowed always. Only the service writes it: when a forwarded
/// call adds an item (its creator), when the user answers a prompt "Always allow" with the keychain
/// password, and through `keychainctl app-access` with the keychain password. No program of the
/// user, the provider included, can write or replace it.
final class SecretServiceAccessLists: @unchecked Sendable {
    /// What happens to an application that is not on an item's list.
    enum Policy: String, Codable, Sendable {
        /// Allowed without asking (recorded in the log as allowed by policy); set by the user.
        case allow
        /// The user is asked, with the keychain password (the default).
        case confirm
        /// Refused.
        case deny
    }

    /// One item's applications: its creator and the others the user allowed always.
    struct ItemList: Codable, Sendable, Equatable {
        var creator: String?
        var trusted: [String]

        /// Whether `application` created the item or is on its list.
        func trusts(_ application: String) -> Bool { creator == application || trusted.contains(application) }
    }

    /// One user's record.
    struct Record: Codable, Sendable, Equatable {
        var policy: Policy
        /// Lists by Secret Service item id (the hex of the item's persistent reference).
        var items: [String: ItemList]

        /// A user's record before anything was recorded: every application not on a list is asked.
        static let empty = Record(policy: .confirm, items: [:])
    }

    /// Why the record could not be read or stored.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let stateDirectory: String
    private let lock = ThreadLock()
    private var loaded: [UInt32: Record] = [:]

    /// Records under `stateDirectory` (the service's, which it alone may write).
    init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
    }

    /// The record of `uid`. An unreadable file is an error (nothing is decided on a record that
    /// could not be read), never taken for an empty record.
    func record(of uid: UInt32) throws(Failure) -> Record {
        lock.lock()
        defer { lock.unlock() }
        return try loadedRecord(uid)
    }

    /// Changes the record of `uid` with `change` and writes it before returning (a change reported
    /// made is on disk); nothing is written when `change` leaves the record as it was.
    func change(of uid: UInt32, _ change: (inout Record) -> Void) throws(Failure) {
        lock.lock()
        defer { lock.unlock() }
        var record = try loadedRecord(uid)
        let before = record
        change(&record)
        guard record != before else { return }
        try store(record, for: uid)
        loaded[uid] = record
    }

    private func path(of uid: UInt32) -> String { stateDirectory + "/\(uid)/secret-service-access.json" }

    private func loadedRecord(_ uid: UInt32) throws(Failure) -> Record {
        if let known = loaded[uid] { return known }
        let file = path(of: uid)
        guard FileManager.default.fileExists(atPath: file) else {
            loaded[uid] = .empty
            return .empty
        }
        let record: Record
        do { record = try JSONDecoder().decode(Record.self, from: Data(contentsOf: URL(fileURLWithPath: file))) } catch {
            throw Failure(description: "cannot read the Secret Service's per-application access in \(file): \(error)")
        }
        loaded[uid] = record
        return record
    }

    /// Writes `record` whole to a temporary file beside the real one, flushes it and renames it
    /// over the real one, so a crash leaves the old record or the new one, never half of either.
    private func store(_ record: Record, for uid: UInt32) throws(Failure) {
        let bytes: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            bytes = try encoder.encode(record)
        } catch {
            throw Failure(description: "cannot encode the per-application access: \(error)")
        }
        do {
            try StateFileReplacement.replace(path(of: uid), in: stateDirectory + "/\(uid)", with: bytes)
        } catch {
            throw Failure(description: "the per-application access was not changed: \(error)")
        }
    }
}
