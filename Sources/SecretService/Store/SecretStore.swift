#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient
import KeychainPrimitives
import KeychainVocabulary

/// The Secret Service's collections and items, kept in keychain files through Apple's public
/// API (SecItem*, SecKeychain*), as an app would: what the D-Bus layer's Service, Collection and
/// Item objects read and change.
///
/// - Collections are keychain files in the default keychain's directory: `login` is the default
///   keychain (`KEYCHAINKIT_KEYCHAIN`, else the XDG path), the others `<id>.keychain-db` files
///   made by ``createCollection(label:password:)``. Their labels, times and the aliases live in
///   `secret-service.json` in that directory (``CollectionMetadata``).
/// - `login` and the `default` alias always exist (recreated when missing).
/// - Items are the generic and internet passwords of a collection's keychain, mapped as
///   ``AttributeMapping`` describes.
///
/// Thread-safe: every call holds one lock for its whole duration.
package final class SecretStore: @unchecked Sendable {
    /// The directory holding the keychain files and the metadata file.
    package let directory: String
    /// The default keychain's path (`login`).
    package let loginPath: String
    /// The metadata file's path.
    package var metadataPath: String { directory + "/" + CollectionMetadata.fileName }

    let lock = ThreadLock()
    /// The metadata, as last read or written.
    var metadata: CollectionMetadata
    /// Collections locked through ``lock(_:)``: not silently unlocked again by an unlock without
    /// password (a password file) until ``unlock(_:password:)`` is called.
    var explicitlyLocked: Set<SecretCollectionID> = []
    /// The keychain handles opened so far, by file path: each collection's keychain is opened once,
    /// not at every call (a `GetSecrets` of many items opened it three times per item). Dropped
    /// when a collection is deleted and when a keychain reports its file gone.
    var handles: [String: KeychainCalls] = [:]
    /// Each unlocked collection's attributes index, once searched (``CollectionAttributeIndex``);
    /// dropped when the collection is locked, deleted or its file found gone.
    var attributeIndexes: [SecretCollectionID: CollectionAttributeIndex] = [:]
    /// Each unlocked collection's per-application access policy and the item lists read so far
    /// (what every access decision needs). Dropped with the index.
    var accessRecordCache: [SecretCollectionID: CachedAccessRecord] = [:]
    /// The keychain writes made for per-application access (what tests count).
    package let applicationAccessWrites = ApplicationAccessWriteCount()
    /// The items decrypted and the full reads made (what tests count).
    package let itemReads = KeychainItemReadCount()

    /// Whether the `login` collection is the user's keychain held by the keychain service (every
    /// item call is then forwarded to it for the D-Bus client being served).
    package var isServedByKeychainService: Bool {
        LoginKeychainServiceRoute.socket(for: loginPath) != nil
    }

    /// Opens the store on the process's default keychain and its directory, creating the
    /// `login` record and the `default` alias if they are missing.
    package convenience init() throws(SecretServiceError) {
        try self.init(loginKeychainPath: KeychainFileCalls.defaultKeychainPath)
    }

    /// Opens the store with `loginKeychainPath` as the `login` collection and its directory for
    /// the other collections and the metadata. Every keychain call names its keychain
    /// (`kSecUseKeychain`), so the process's default keychain plays no part.
    package init(loginKeychainPath: String) throws(SecretServiceError) {
        loginPath = loginKeychainPath
        directory = FilePaths.deletingLastComponent(loginPath)
        metadata = CollectionMetadata()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage(status: KeychainStatus.io.rawValue)
        }
        metadata = try CollectionMetadata.read(path: metadataPath)
        try ensureDefaults()
        try createLoginKeychainIfMissing()
    }

    /// Creates the `login` keychain without a password when its file does not exist yet, as the
    /// default keychain is created at its first use (a password can be set later with
    /// `keychainctl set-keychain-password`).
    private func createLoginKeychainIfMissing() throws(SecretServiceError) {
        guard !FileManager.default.fileExists(atPath: loginPath) else { return }
        let status = KeychainClient.createKeychain(at: loginPath, password: nil)
        guard status == KeychainStatus.success.rawValue || status == KeychainStatus.duplicateKeychain.rawValue else {
            throw KeychainCalls.error(status)
        }
    }

    /// Runs `body` holding the lock. A keychain file found gone drops the cached handles, so
    /// that a later call opens what the paths name then.
    func locked<T>(_ body: () throws(SecretServiceError) -> T) throws(SecretServiceError) -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body()
        } catch .keychainFileGone(let path) {
            handles = [:]
            attributeIndexes = [:]
            accessRecordCache = [:]
            throw .keychainFileGone(path: path)
        }
    }

    /// Adds the `login` record and the `default` alias when missing, and drops aliases to
    /// collections that no longer exist.
    private func ensureDefaults() throws(SecretServiceError) {
        var changed = false
        if metadata.collections[SecretCollectionID.login.rawValue] == nil {
            let now = Date()
            metadata.collections[SecretCollectionID.login.rawValue] = .init(label: "Login", created: now, modified: now, file: nil)
            changed = true
        }
        for (alias, target) in metadata.aliases where metadata.collections[target] == nil {
            metadata.aliases[alias] = nil
            changed = true
        }
        if metadata.aliases["default"] == nil {
            metadata.aliases["default"] = SecretCollectionID.login.rawValue
            changed = true
        }
        if changed { try metadata.write(path: metadataPath) }
    }

    /// The keychain calls for a collection; `noSuchObject` if the collection is unknown.
    func keychain(_ collection: SecretCollectionID) throws(SecretServiceError) -> KeychainCalls {
        guard let record = metadata.collections[collection.rawValue] else { throw .noSuchObject }
        let path = record.file.map { directory + "/" + $0 } ?? loginPath
        if let cached = handles[path] { return cached }
        let calls = try KeychainCalls(path: path, readCount: itemReads)
        handles[path] = calls
        return calls
    }

    /// The path of a collection's keychain file; `noSuchObject` if the collection is unknown.
    package func keychainPath(of collection: SecretCollectionID) throws(SecretServiceError) -> String {
        try locked { () throws(SecretServiceError) -> String in
            guard let record = metadata.collections[collection.rawValue] else { throw .noSuchObject }
            return record.file.map { directory + "/" + $0 } ?? loginPath
        }
    }

    /// Records a change to a collection's content (its `Modified` property).
    func touch(_ collection: SecretCollectionID) throws(SecretServiceError) {
        metadata.collections[collection.rawValue]?.modified = Date()
        try metadata.write(path: metadataPath)
    }

    // MARK: - Collections

    /// Every collection's id, `login` first, then the others by id.
    package func collectionIDs() -> [SecretCollectionID] {
        lock.lock()
        defer { lock.unlock() }
        let others = metadata.collections.keys.filter { $0 != SecretCollectionID.login.rawValue }.sorted()
        return [.login] + others.compactMap(SecretCollectionID.init(rawValue:))
    }

    /// A collection's properties.
    /// - Throws: `noSuchObject` for an unknown id; a storage error if its keychain cannot be opened.
    package func collection(_ id: SecretCollectionID) throws(SecretServiceError) -> SecretCollectionInfo {
        try locked { () throws(SecretServiceError) -> SecretCollectionInfo in
            guard let record = metadata.collections[id.rawValue] else { throw .noSuchObject }
            return SecretCollectionInfo(label: record.label, created: record.created, modified: record.modified,
                                        isLocked: try lockedState(id))
        }
    }

    /// Creates a collection: a new keychain file `<id>.keychain-db` in the directory, with
    /// `password` (nil: no password, protected by the device key only and never locked).
    /// The id comes from the label (`[A-Za-z0-9_]`, others replaced by `_`), made unique with
    /// a number suffix; the new collection is unlocked.
    package func createCollection(label: String, password: Data?) throws(SecretServiceError) -> SecretCollectionID {
        try locked { () throws(SecretServiceError) -> SecretCollectionID in
            // The keychain service holds one keychain per user, not files of the provider's own.
            if isServedByKeychainService {
                throw .notSupported("the keychain service holds one keychain per user: keep items in the login collection "
                                    + "(or unset KEYCHAINKIT_SERVICE_SOCKET for collections in keychain files of your own)")
            }
            let base = SecretIdentifierSyntax.sanitize(label)
            var candidate = base
            var suffix = 1
            while true {
                let fileName = candidate + ".keychain-db"
                let path = directory + "/" + fileName
                // `session` names the provider's in-memory collection (SessionCollection).
                if metadata.collections[candidate] == nil, path != loginPath, candidate != "session" {
                    let status = KeychainClient.createKeychain(at: path, password: password)
                    if status == KeychainStatus.success.rawValue {
                        let now = Date()
                        metadata.collections[candidate] = .init(label: label, created: now, modified: now, file: fileName)
                        try metadata.write(path: metadataPath)
                        return SecretCollectionID(validated: candidate)
                    }
                    // A keychain file of that name that is not one of ours (made by keychainctl):
                    // never taken over, the next name is tried.
                    guard status == KeychainStatus.duplicateKeychain.rawValue else { throw KeychainCalls.error(status) }
                }
                suffix += 1
                candidate = base + "_\(suffix)"
            }
        }
    }

    /// Sets a collection's label.
    package func setLabel(_ label: String, of id: SecretCollectionID) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard metadata.collections[id.rawValue] != nil else { throw .noSuchObject }
            metadata.collections[id.rawValue]?.label = label
            metadata.collections[id.rawValue]?.modified = Date()
            try metadata.write(path: metadataPath)
        }
    }

    /// Deletes a collection, its keychain file and every item in it, and the aliases pointing
    /// at it (`default` then points at `login` again).
    /// - Throws: `notSupported` for `login`; `noSuchObject` for an unknown id.
    package func deleteCollection(_ id: SecretCollectionID) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard id != .login else { throw .notSupported("the login collection cannot be deleted") }
            let calls = try keychain(id)
            let status = KeychainClient.deleteKeychain(calls.path)
            handles[calls.path] = nil
            dropIndex(of: id)
            guard status == KeychainStatus.success.rawValue || status == KeychainStatus.noSuchKeychain.rawValue else {
                throw KeychainCalls.error(status)
            }
            metadata.collections[id.rawValue] = nil
            explicitlyLocked.remove(id)
            try ensureDefaults()
            try metadata.write(path: metadataPath)
        }
    }

    /// The collection an alias names, or nil. `default` always names one (`login` unless set).
    package func readAlias(_ name: String) -> SecretCollectionID? {
        lock.lock()
        defer { lock.unlock() }
        return metadata.aliases[name].flatMap(SecretCollectionID.init(rawValue:))
    }

    /// Points an alias at a collection, or removes it (nil). Removing `default` points it back
    /// at `login`.
    package func setAlias(_ name: String, to id: SecretCollectionID?) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard !name.isEmpty else { throw .invalidArgument("empty alias") }
            if let id, metadata.collections[id.rawValue] == nil { throw .noSuchObject }
            metadata.aliases[name] = id?.rawValue
            try ensureDefaults()
            try metadata.write(path: metadataPath)
        }
    }

    // MARK: - Locking

    /// Whether a collection is locked. A keychain without password (or one the user's password
    /// file opens) is unlocked here without a prompt, unless ``lock(_:)`` locked it.
    package func isLocked(_ id: SecretCollectionID) throws(SecretServiceError) -> Bool {
        try locked { () throws(SecretServiceError) -> Bool in try lockedState(id) }
    }

    func lockedState(_ id: SecretCollectionID) throws(SecretServiceError) -> Bool {
        let calls = try keychain(id)
        if try calls.isUnlocked() { return false }
        // Locked (here or by another process): its attributes leave memory.
        dropIndex(of: id)
        if explicitlyLocked.contains(id) { return true }
        do {
            try calls.unlock(password: nil)
            return false
        } catch .isLocked {
            return true
        }
    }

    /// Locks a collection (`SecKeychainLock`): its secrets and stored attributes can no longer
    /// be read until ``unlock(_:password:)``.
    package func lock(_ id: SecretCollectionID) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            try keychain(id).lock()
            explicitlyLocked.insert(id)
            dropIndex(of: id)
        }
    }

    /// Unlocks a collection (`SecKeychainUnlock`).
    /// - Parameter password: the keychain's password; nil for a keychain without password or
    ///   one that `KEYCHAINKIT_PASSWORD_FILE` opens.
    /// - Throws: `wrongPassword` for a wrong password; `isLocked` when a password is needed
    ///   and none was given (the D-Bus layer then prompts).
    package func unlock(_ id: SecretCollectionID, password: Data?) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            try keychain(id).unlock(password: password)
            explicitlyLocked.remove(id)
        }
    }
}
