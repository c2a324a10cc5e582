#if os(Linux)
import CredentialImport
import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SecretService

/// Brings gnome-keyring keyrings into the Secret Service provider's collections (the store
/// `keychainctl secret-service` serves), so that `secret-tool lookup` finds every item with the
/// same label, attributes and secret as before.
///
/// - A keyring `login` goes into the `login` collection (the default keychain); any other into
///   the collection with the keyring's label, created when there is none (with the keyring's
///   password; a password-less keyring makes a collection without one).
/// - An item is the same as one already in its collection when the label and the whole
///   attribute set are equal: then it is `unchanged` (same secret) or an `update` (its secret
///   is replaced). So a second run stores nothing.
/// - The `default` alias follows the keyring gnome-keyring's `default` file names.
/// - The keyring files are only read, never changed.
struct KeyringImporter {
    /// One keyring file read and opened.
    struct Source {
        var path: String
        var collection: ImportedCollection
        /// Whether gnome-keyring's `default` file beside it names this keyring.
        var isDefault: Bool
    }

    /// What happens to one item.
    enum Change {
        case new
        case update(SecretItemRef)
        case unchanged
    }

    struct PlannedItem {
        var item: ImportedSecretItem
        var change: Change
    }

    /// A keyring and the collection it goes into.
    struct PlannedCollection {
        var source: Source
        /// The collection, or nil when it is to be created.
        var target: SecretCollectionID?
        var items: [PlannedItem]
        /// Items left out, each with why (never silently).
        var skipped: [String]
    }

    // MARK: - Reading

    /// Whether `path` names keyring input: a `.keyring` file, a KeePass database, a KWallet
    /// wallet (`.kwl`), or a directory (gnome-keyring's `~/.local/share/keyrings`, KWallet's
    /// `~/.local/share/kwalletd`).
    static func isKeyringPath(_ path: String) -> Bool {
        return path.hasSuffix(".keyring") || KDBXFile.isDatabasePath(path) || KWalletFile.isWalletPath(path) || isDirectory(path) == true
    }

    /// Whether `path` names a directory, following symbolic links (as
    /// `FileManager.fileExists(atPath:isDirectory:)`); nil when nothing is there.
    private static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// Reads and opens every keyring `paths` name (a directory: each `*.keyring` in it). An
    /// encrypted keyring is tried with the empty password first (gnome-keyring keeps keyrings
    /// whose password was left empty encrypted too), then with `--password-file`'s, else asked for.
    static func read(_ paths: [String], passwordFile: String?) throws -> [Source] {
        var files: [String] = []
        for path in paths {
            guard let isDirectory = isDirectory(path) else {
                throw UsageFailure(message: "\(path): no such file or directory. Nothing was stored.")
            }
            if isDirectory {
                let names: [String]
                do {
                    names = try FileManager.default.contentsOfDirectory(atPath: path)
                } catch {
                    throw UsageFailure(message: "\(path): cannot list it (\(SystemErrorText.of(error))). Nothing was stored.")
                }
                let keyrings = names.filter { $0.hasSuffix(".keyring") || KWalletFile.isWalletPath($0) }.sorted()
                guard !keyrings.isEmpty else { throw UsageFailure(message: "\(path): no *.keyring or *.kwl files in it. Nothing was stored.") }
                files += keyrings.map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        let filePassword = try passwordFile.map(readPasswordFile)
        var sources: [Source] = []
        for file in files {
            let content = try contents(of: file)
            if KWalletFile.isWalletPath(file) {
                let collection = try openWallet(content, file: file, filePassword: filePassword)
                sources.append(Source(path: file, collection: collection, isDefault: false))
                continue
            }
            if KDBXFile.isDatabasePath(file) {
                let collection = try openDatabase(content, file: file, filePassword: filePassword)
                sources.append(Source(path: file, collection: collection, isDefault: false))
                continue
            }
            let identifier = GnomeKeyringFile.identifier(ofPath: file)
            let collection = try open(content, identifier: identifier, file: file, filePassword: filePassword)
            let directory = FilePaths.deletingLastComponent(file)
            let isDefault = GnomeKeyringFile.defaultAlias(inDirectory: directory.isEmpty ? "." : directory) == identifier
            sources.append(Source(path: file, collection: collection, isDefault: isDefault))
        }
        return sources
    }

    /// The largest keyring file read (gnome-keyring keeps a keyring in memory too; 1 MiB secrets fit many times).
    static let maximumFileSize = 256 * 1_048_576

    private static func contents(of path: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw UsageFailure(message: "\(path): \(String(cString: strerror(errno))). Nothing was stored.") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw UsageFailure(message: "\(path): not a regular file. Nothing was stored.") }
        guard info.st_size <= maximumFileSize else {
            throw UsageFailure(message: "\(path): larger than \(maximumFileSize / 1_048_576) MiB; not a keyring file. Nothing was stored.")
        }
        guard let content = FileManager.default.contents(atPath: path) else {
            throw UsageFailure(message: "\(path): cannot be read (\(String(cString: strerror(errno)))). Nothing was stored.")
        }
        return content
    }

    /// The first line of the password file (as `--password-file` reads elsewhere).
    private static func readPasswordFile(_ path: String) throws -> Data {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw UsageFailure(message: "cannot read the keyring password from \(path) (\(String(cString: strerror(errno)))). Nothing was stored.")
        }
        return Data(contents.prefix { $0 != 0x0A && $0 != 0x0D })
    }

    /// A file name without its extension (the last `.` and what follows it, unless the name
    /// starts there), as `NSString.deletingPathExtension` gives it: `Passwords.kdbx` → `Passwords`.
    private static func withoutExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// Opens a KeePass/KeePassXC KDBX 4 database: its password from `--password-file` or a
    /// no-echo prompt (no empty-password attempt first: each attempt costs the database's Argon2).
    /// It goes into the collection with the database's name, created with its password.
    private static func openDatabase(_ content: Data, file: String, filePassword: Data?) throws -> ImportedCollection {
        let identifier = Self.withoutExtension(PathName.lastComponent(of: file))
        func attempt(_ password: Data) throws -> ImportedCollection? {
            do throws(CredentialImportError) {
                return try KDBXFile.read(content, identifier: identifier, password: password, keyFile: nil, file: file)
            } catch where error.kind == .wrongPassword {
                return nil
            } catch {
                throw UsageFailure(message: error.description + ". Nothing was stored.")
            }
        }
        if let filePassword {
            if let opened = try attempt(filePassword) { return opened }
            throw UsageFailure(message: "\(file): the password in the password file does not open this database. Nothing was stored.")
        }
        guard SecretInput.isInteractive else {
            throw UsageFailure(message: "\(file) is a KeePass database: give its password with --password-file FILE, or run at a terminal "
                               + "to be asked. Nothing was stored.")
        }
        for _ in 0..<3 {
            var typed = try SecretInput.secret(prompt: "Password of database \(identifier) (\(file)): ", endsInput: false)
            defer { typed.wipe() }
            if let opened = try attempt(typed) { return opened }
            Console.error("keychainctl: that password does not open \(file)")
        }
        throw UsageFailure(message: "\(file): three wrong passwords. Nothing was stored.")
    }

    /// Opens a KWallet wallet with the salt file kwalletd keeps beside it: its password from
    /// `--password-file` or a no-echo prompt (no empty-password attempt first: each attempt costs
    /// 50,000 PBKDF2 rounds). It goes into the collection with the wallet's name, created with
    /// its password.
    private static func openWallet(_ content: Data, file: String, filePassword: Data?) throws -> ImportedCollection {
        let name = KWalletFile.walletName(ofPath: file)
        let saltPath = KWalletFile.saltPath(ofWalletPath: file)
        let salt = FileManager.default.fileExists(atPath: saltPath) ? try contents(of: saltPath) : nil
        func attempt(_ password: Data) throws -> ImportedCollection? {
            do throws(CredentialImportError) {
                return try KWalletFile.read(content, salt: salt, name: name, password: password, file: file)
            } catch where error.kind == .wrongPassword {
                return nil
            } catch {
                throw UsageFailure(message: error.description)
            }
        }
        if let filePassword {
            if let opened = try attempt(filePassword) { return opened }
            throw UsageFailure(message: "\(file): the password in the password file does not open this wallet (or its encrypted part "
                               + "is damaged). Nothing was stored.")
        }
        guard SecretInput.isInteractive else {
            throw UsageFailure(message: "\(file) is a KWallet wallet: give its password with --password-file FILE, or run at a terminal "
                               + "to be asked. Nothing was stored.")
        }
        for _ in 0..<3 {
            var typed = try SecretInput.secret(prompt: "Password of wallet \(name) (\(file)): ", endsInput: false)
            defer { typed.wipe() }
            if let opened = try attempt(typed) { return opened }
            Console.error("keychainctl: that password does not open \(file)")
        }
        throw UsageFailure(message: "\(file): three wrong passwords (or the wallet's encrypted part is damaged). Nothing was stored.")
    }

    private static func open(_ content: Data, identifier: String, file: String, filePassword: Data?) throws -> ImportedCollection {
        func attempt(_ password: Data) throws -> ImportedCollection? {
            do throws(CredentialImportError) {
                return try GnomeKeyringFile.read(content, identifier: identifier, password: password, file: file)
            } catch where error.kind == .wrongPassword {
                return nil
            } catch {
                throw UsageFailure(message: error.description)
            }
        }
        if let opened = try attempt(Data()) { return opened }
        if let filePassword {
            if let opened = try attempt(filePassword) { return opened }
            throw UsageFailure(message: "\(file): the password in the password file does not open this keyring (or its encrypted part "
                               + "is damaged). Nothing was stored.")
        }
        guard SecretInput.isInteractive else {
            throw UsageFailure(message: "\(file) is encrypted: give its password with --password-file FILE, or run at a terminal "
                               + "to be asked. Nothing was stored.")
        }
        for _ in 0..<3 {
            var typed = try SecretInput.secret(prompt: "Password of keyring \(identifier) (\(file)): ", endsInput: false)
            defer { typed.wipe() }
            if let opened = try attempt(typed) { return opened }
            Console.error("keychainctl: that password does not open \(file)")
        }
        throw UsageFailure(message: "\(file): three wrong passwords (or the keyring's encrypted part is damaged). Nothing was stored.")
    }

    // MARK: - Planning

    /// What importing `sources` into `store` would do; changes nothing.
    static func plan(_ sources: [Source], in store: SecretStore) throws -> [PlannedCollection] {
        var plans: [PlannedCollection] = []
        for source in sources {
            let target = targetCollection(of: source.collection, in: store)
            if let target, try store.isLocked(target), !source.collection.password.isEmpty {
                // A collection this import created has the keyring's password: a re-run opens it.
                let unlocked = Result { () throws(SecretServiceError) in try store.unlock(target, password: source.collection.password) }
                // Not the keyring's password: the user unlocks it (below). Any other failure stops.
                if case .failure(let error) = unlocked, !isWrongPassword(error) { throw error }
            }
            if let target, try store.isLocked(target) {
                let path = try store.keychainPath(of: target)
                throw UsageFailure(message: "the collection \(target) (\(path)) is locked: unlock it first "
                                   + "(keychainctl unlock-keychain \(path)) and run again. Nothing was stored.")
            }
            var plan = PlannedCollection(source: source, target: target, items: [], skipped: [])
            var seen: [(label: String, attributes: [String: String])] = []
            for item in source.collection.items {
                if seen.contains(where: { $0.label == item.label && $0.attributes == item.attributes }) {
                    plan.skipped.append("\"\(item.label)\" \(describe(item.attributes)): the same label and attributes as an earlier item of this keyring")
                    continue
                }
                seen.append((item.label, item.attributes))
                plan.items.append(PlannedItem(item: item, change: try target.map { try change(for: item, in: $0, store: store) } ?? .new))
            }
            plans.append(plan)
        }
        return plans
    }

    private static func isWrongPassword(_ error: SecretServiceError) -> Bool {
        if case .wrongPassword = error { return true }
        return false
    }

    /// The collection a keyring goes into: `login` for gnome-keyring's login keyring, else the
    /// one with the keyring's label; nil when it is to be created.
    static func targetCollection(of collection: ImportedCollection, in store: SecretStore) -> SecretCollectionID? {
        if collection.identifier == SecretCollectionID.login.rawValue { return .login }
        return store.collectionIDs().first { id in
            guard id != .login else { return false }
            do {
                return try store.collection(id).label == collection.label
            } catch {
                return false  // a collection whose keychain cannot be opened is not the one to add to
            }
        }
    }

    /// Whether `item` is already in `collection` (same label and attributes), and with which secret.
    private static func change(for item: ImportedSecretItem, in collection: SecretCollectionID, store: SecretStore) throws -> Change {
        let found = try store.search(attributes: item.attributes).unlocked.filter { $0.collection == collection }
        for ref in found {
            let info = try store.item(ref)
            guard info.label == item.label, info.attributes == item.attributes else { continue }
            return try store.secret(ref).bytes == Array(item.secret) ? .unchanged : .update(ref)
        }
        return .new
    }

    /// Attributes as `{name=value, …}` sorted by name (attribute values are not secrets).
    static func describe(_ attributes: [String: String]) -> String {
        "{" + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
    }

    // MARK: - Storing

    /// Stores `plans`; on any failure removes what it added and puts back what it replaced.
    /// Returns the number of items stored.
    @discardableResult
    static func apply(_ plans: [PlannedCollection], to store: SecretStore) throws -> Int {
        var createdCollections: [SecretCollectionID] = []
        var addedItems: [SecretItemRef] = []
        var replaced: [(SecretItemRef, SecretValue)] = []
        var stored = 0
        var defaultTarget: SecretCollectionID?
        do {
            for plan in plans {
                let changes = plan.items.filter { if case .unchanged = $0.change { return false } else { return true } }
                let target: SecretCollectionID
                if let existing = plan.target {
                    target = existing
                } else {
                    let password = plan.source.collection.password
                    target = try store.createCollection(label: plan.source.collection.label, password: password.isEmpty ? nil : password)
                    createdCollections.append(target)
                }
                for entry in changes {
                    let value = SecretValue(bytes: Array(entry.item.secret), contentType: "text/plain")
                    switch entry.change {
                    case .new:
                        addedItems.append(try store.createItem(in: target, label: entry.item.label, attributes: entry.item.attributes,
                                                               secret: value, replace: false))
                    case .update(let ref):
                        let previous = try store.secret(ref)
                        try store.setSecret(ref, value)
                        replaced.append((ref, previous))
                    case .unchanged:
                        break
                    }
                    stored += 1
                }
                if plan.source.isDefault { defaultTarget = target }
            }
            // Last, once every item is in: nothing to undo after it.
            if let defaultTarget, store.readAlias("default") != defaultTarget {
                try store.setAlias("default", to: defaultTarget)
            }
        } catch {
            var undone = true
            for ref in addedItems.reversed() { do { try store.deleteItem(ref) } catch { undone = false } }
            for (ref, previous) in replaced.reversed() { do { try store.setSecret(ref, previous) } catch { undone = false } }
            for id in createdCollections.reversed() { do { try store.deleteCollection(id) } catch { undone = false } }
            let cause = error.description
            throw UsageFailure(message: "storing the keyrings failed (\(cause)); "
                               + (undone ? "what was stored is removed again" : "some of what was stored could not be removed: check with secret-tool search"))
        }
        return stored
    }
}
#endif
