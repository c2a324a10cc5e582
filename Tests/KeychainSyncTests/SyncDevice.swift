import Foundation
import KeychainStore
import KeychainTestSupport
@testable import KeychainSync
import KeychainVocabulary

/// One simulated device: its own keychain file and device key in a temporary folder, its
/// keychain's dates read from `clock` (shared by a circle's devices: which of two edits is the
/// later one is the test's decision, not a race against the system clock).
final class SyncDevice: @unchecked Sendable {  // used from one thread at a time in tests
    let directory: URL
    let clock: ManualClock
    let database: KeychainDatabase
    let synchronizer: KeychainSynchronizer

    /// A device reaching its circle through etcd, or through the transport `opener` makes for
    /// this device's folder (a git transport keeps its private clone there).
    init(_ name: String, password: String? = nil, clock: ManualClock = ManualClock(),
         opener: ((URL) -> SyncTransportOpener)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-sync-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.clock = clock
        database = try Self.open(directory, password: password, clock: clock)
        if let opener {
            synchronizer = KeychainSynchronizer(database: database, openTransport: opener(directory))
        } else {
            synchronizer = KeychainSynchronizer(database: database)
        }
    }

    /// A thief's copy of `other`: its keychain file and (unless `withDeviceKey` is false) its
    /// device key, opened without a password.
    init(stolenCopyOf other: SyncDevice, withDeviceKey: Bool = true) throws {
        _ = try other.database.checkpointAndTruncateLog(waitingAtMost: 1000)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-sync-stolen-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: other.directory, to: directory)
        if !withDeviceKey { try FileManager.default.removeItem(at: directory.appendingPathComponent("state/device.key")) }
        clock = other.clock
        database = try Self.open(directory, password: nil, clock: clock)
        synchronizer = KeychainSynchronizer(database: database)
    }

    private static func open(_ directory: URL, password: String?, clock: ManualClock) throws -> KeychainDatabase {
        var options = KeychainDatabase.Options(deviceKeyPath: directory.appendingPathComponent("state/device.key").path,
                                               newKeychainKDF: .testing(), allowTestingKDF: true)
        options.currentDate = { clock.date() }
        return try KeychainDatabase.open(path: directory.appendingPathComponent("login.keychain-db").path,
                                         password: password.map { Data($0.utf8) }, options: options)
    }

    /// Asks to join with `code`, has `sponsor` sponsor this device and confirms with the
    /// confirmation the sponsor showed (as the person carries it over); then syncs once.
    func join(_ code: CircleCode, sponsor: SyncDevice, location: String) throws {
        let id = try synchronizer.join(code: code, location: location)
        let sponsorship = try sponsor.synchronizer.sponsor(id)
        try synchronizer.confirmJoin(sponsorship.confirmation)
        try sync()
    }

    /// This device's circle state (its identity, member list and keys), as a test reads it.
    func state() throws -> CircleState {
        guard let state = try CircleState.load(from: database) else { throw SyncError.notInCircle }
        return state
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)  // test cleanup only
    }

    static func item(_ account: String, _ secret: String, synchronizable: Bool = true,
                     protection: ProtectionClass = .whenUnlocked, group: String = "app") -> NewItem {
        NewItem(itemClass: .genericPassword,
                attributes: ["acct": .string(account), "svce": .string("svc"), "agrp": .string(group),
                             "sync": .number(synchronizable ? 1 : 0)],
                data: Data(secret.utf8), protection: protection)
    }

    private func query(_ account: String, synchronizable: Bool = true) -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        query.filters = ["acct": .string(account), "svce": .string("svc")]
        query.synchronizable = synchronizable
        return query
    }

    func add(_ account: String, _ secret: String) throws {
        _ = try database.insert(Self.item(account, secret))
    }

    func update(_ account: String, _ secret: String) throws {
        var changes = ItemChanges()
        changes.data = Data(secret.utf8)
        try database.update(query(account), with: changes)
    }

    func delete(_ account: String) throws {
        try database.delete(query(account))
    }

    /// The secret of the synchronizable item `account`, or nil if there is none.
    func secret(_ account: String) throws -> String? {
        let found: [KeychainItem]
        do throws(KeychainStoreError) {
            found = try database.find(query(account), decrypt: true)
        } catch {
            if case .itemNotFound = error.reason { return nil }
            throw error
        }
        return found.first?.data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every synchronizable account here and its secret.
    func contents() throws -> [String: String] {
        var everything = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        everything.synchronizable = true
        let items: [KeychainItem]
        do throws(KeychainStoreError) {
            items = try database.find(everything, decrypt: true)
        } catch {
            if case .itemNotFound = error.reason { return [:] }
            throw error
        }
        var out: [String: String] = [:]
        for item in items {
            guard case .string(let account)? = item.attributes["acct"] else { continue }
            out[account] = item.data.map { String(decoding: $0, as: UTF8.self) }
        }
        return out
    }

    @discardableResult
    func sync() throws -> SyncReport { try synchronizer.synchronize() }
}
