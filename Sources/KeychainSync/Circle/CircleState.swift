import Crypto
import Foundation
import KeychainStore

/// What one device remembers about its circle, kept in its own keychain as a ThisDeviceOnly item
/// (never synchronized): the circle's endpoints and keys, this device's identity and private key,
/// and, per record name, the last version this device agreed on with the circle — how a local
/// change is told from a copy of a remote one, and how a local deletion finds its record.
struct CircleState: Codable {
    struct Synced: Codable, Equatable {
        /// The version both sides had at the last sync.
        var version: RecordVersion
        /// The item's identity in this keychain (empty if it never existed here).
        var localIdentity: Data
        /// Whether that version is a deletion.
        var isDeletion: Bool
    }

    var endpoints: [String]
    var circleID: Data
    /// The circle secret as this device knows it; nil once another device re-keyed the circle.
    var secret: Data?
    var deviceID: Data
    var memberPrivateKey: Data
    var bundle: Data
    /// The etcd revision at which the current key bundle was published.
    var keysRevision: Int64
    /// Record name (hex) → the last version agreed on.
    var synced: [String: Synced]

    var keyBundle: KeyBundle {
        get throws(SyncError) { try KeyBundle(decoding: bundle) }
    }

    var code: CircleCode? { secret.map { CircleCode(circleID: circleID, secret: SymmetricKey(data: $0)) } }

    var privateKey: Curve25519.KeyAgreement.PrivateKey {
        get throws(SyncError) {
            do {
                return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: memberPrivateKey)
            } catch {
                throw .tampered("this device's circle key (in the keychain)")
            }
        }
    }

    // MARK: Keeping it in the keychain

    static let accessGroup = "com.keychainkit.sync"
    private static let service = "com.keychainkit.sync"
    private static let account = "circle"

    private static var query: ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only([accessGroup]))
        query.filters = ["svce": .string(service), "acct": .string(account)]
        return query
    }

    /// The state stored in `database`, or nil when it is in no circle.
    static func load(from database: KeychainDatabase) throws(SyncError) -> CircleState? {
        let found: [KeychainItem]
        do {
            found = try database.find(query, decrypt: true)
        } catch {
            throw .keychain(error)
        }
        guard let data = found.first?.data else { return nil }
        do {
            return try JSONDecoder().decode(CircleState.self, from: data)
        } catch {
            throw .tampered("this device's circle state (in the keychain)")
        }
    }

    /// Stores the state (adding the item the first time).
    func save(to database: KeychainDatabase) throws(SyncError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(self)
        } catch {
            throw .tampered("this device's circle state")
        }
        do {
            var changes = ItemChanges()
            changes.data = data
            try database.update(Self.query, with: changes)
        } catch .itemNotFound {
            do {
                _ = try database.insert(NewItem(itemClass: .genericPassword,
                                                attributes: ["svce": .string(Self.service), "acct": .string(Self.account),
                                                             "agrp": .string(Self.accessGroup), "sync": .number(0)],
                                                data: data, protection: .alwaysThisDeviceOnly))
            } catch {
                throw .keychain(error)
            }
        } catch {
            throw .keychain(error)
        }
    }

    /// Removes the state (the device left the circle).
    static func remove(from database: KeychainDatabase) throws(SyncError) {
        do {
            try database.delete(query)
        } catch .itemNotFound {
            return
        } catch {
            throw .keychain(error)
        }
    }
}
