import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient
import KeychainVocabulary

/// The log's key and the checkpoint of its chain, kept as one generic-password item of the
/// keychain the log is about, so they are under that keychain's protection:
///
/// - accessible `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: encrypted under the class key
///   the keychain password unlocks, bound to this device (a copied keychain and log cannot be read
///   elsewhere), never synchronized;
/// - access group `com.keychainkit.access-log`, invisible (`kSecAttrIsInvisible`), so applications
///   searching their own groups never meet it.
///
/// The checkpoint is the newest entry's sequence number and tag, and where it ends in the current
/// log file. Written after each append, it is what detects a log whose newest entries were cut off
/// or that was replaced by an older copy: the chain alone cannot (an older prefix is a valid chain).
struct AccessLogVault {
    /// The newest entry the keychain vouches for.
    struct Checkpoint: Equatable {
        /// Its sequence number (0: the log has no entry yet).
        var sequence: UInt64
        /// Its GCM tag (zeros for none).
        var tag: Data
        /// The size of the current log file once it was appended.
        var offset: UInt64

        static let empty = Checkpoint(sequence: 0, tag: AccessLogFrame.noPreviousTag, offset: 0)
    }

    static let service = "KeychainKit access log"
    static let account = "key and checkpoint"
    static let accessGroup = "com.keychainkit.access-log"
    private static let formatVersion: UInt8 = 1
    private static let encodedSize = 1 + 32 + 8 + AccessLogFrame.tagSize + 8

    let items: AccessLogKeyItems
    let keychainPath: String

    /// The vault of the keychain at `keychainPath` (which must exist: a log is about a keychain),
    /// reached through this process's SecItem calls (KeychainClient).
    init(keychainPath: String) {
        self.init(keychainPath: keychainPath, items: .client(keychainPath: keychainPath))
    }

    /// The vault of the keychain at `keychainPath`, reached through `items`.
    init(keychainPath: String, items: AccessLogKeyItems) {
        self.items = items
        self.keychainPath = keychainPath
    }

    private var itemQuery: [String: Any] {
        [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: Self.service,
         SecItemKey.account: Self.account, SecItemKey.accessGroup: Self.accessGroup]
    }

    /// The key and checkpoint, or nil when the keychain has none (no log yet).
    func load() throws(AccessLogError) -> (key: SymmetricKey, checkpoint: Checkpoint)? {
        var query = itemQuery
        query[SecItemKey.returnData] = true
        let (status, result) = items.copyData(query)
        if status == KeychainStatus.itemNotFound.rawValue { return nil }
        try check(status, "SecItemCopyMatching")
        guard let data = result, data.count == Self.encodedSize, data.first == Self.formatVersion else {
            throw .keychain(status: KeychainStatus.decode.rawValue, operation: "reading the log key item", keychain: keychainPath)
        }
        let start = data.startIndex
        let key = SymmetricKey(data: data[start + 1..<start + 33])
        let checkpoint = Checkpoint(sequence: data.readBigEndianUInt64(at: start + 33),
                                    tag: Data(data[start + 41..<start + 57]),
                                    offset: data.readBigEndianUInt64(at: start + 57))
        return (key, checkpoint)
    }

    /// Makes a new random key with an empty checkpoint and stores it.
    func create() throws(AccessLogError) -> SymmetricKey {
        let key = SymmetricKey(size: .bits256)
        var item = itemQuery
        item[SecItemKey.valueData] = Self.encode(key: key, checkpoint: .empty)
        item[SecItemKey.accessible] = SecItemKey.accessibleAfterFirstUnlockThisDeviceOnly
        item[SecItemKey.label] = "KeychainKit access log key (keychainctl access-log)"
        item[SecItemKey.isInvisible] = true
        try check(items.add(item), "SecItemAdd")
        return key
    }

    /// Records `checkpoint` (one keychain transaction, durable when it returns).
    func save(key: SymmetricKey, checkpoint: Checkpoint) throws(AccessLogError) {
        let changes = [SecItemKey.valueData: Self.encode(key: key, checkpoint: checkpoint)]
        try check(items.update(itemQuery, changes), "SecItemUpdate")
    }

    private static func encode(key: SymmetricKey, checkpoint: Checkpoint) -> Data {
        var data = Data([formatVersion])
        key.withUnsafeBytes { data.append(contentsOf: $0) }
        data.append(bigEndian: checkpoint.sequence)
        data.append(checkpoint.tag)
        data.append(bigEndian: checkpoint.offset)
        return data
    }

    private func check(_ status: Int32, _ operation: String) throws(AccessLogError) {
        guard status != KeychainStatus.success.rawValue else { return }
        if status == KeychainStatus.interactionNotAllowed.rawValue { throw .keychainLocked(keychain: keychainPath) }
        throw .keychain(status: status, operation: operation, keychain: keychainPath)
    }
}
