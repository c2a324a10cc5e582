import Foundation
import KeychainServices

extension Keychain {
    /// Moves secrets that an earlier version kept in `UserDefaults` into this keychain.
    ///
    /// For each key, in order: a `String` value is stored as UTF-8 and a `Data` value as is
    /// (read them back with ``string(forKey:)`` and ``data(forKey:)``), replacing any keychain
    /// item of that key; only after that write succeeds is the key removed from `defaults`.
    /// Keys absent from `defaults` are skipped, so running the migration again (on every launch,
    /// or after an interrupted run) is safe and moves nothing twice.
    ///
    /// Before moving anything, every present value is checked: if one is neither a `String` nor
    /// `Data`, nothing moves and ``KeychainError/invalidArgument`` names the key and its type.
    /// If a keychain write fails, the keys moved before it stay moved, the failing key and the
    /// rest stay in `defaults`, and the error is thrown; run the migration again later.
    ///
    /// The defaults are saved (`synchronize()`) before the keys are read, so a value another
    /// process has already migrated is seen as gone, and again after the removals, before the
    /// call returns: a removal that did not reach the disk would let the next launch migrate the
    /// old value again over a newer one. If saving fails, the call throws `errSecIO` naming the
    /// keys whose values are in the keychain but still in the defaults file.
    ///
    /// Values come from `defaults.object(forKey:)`: do not `register(defaults:)` values for the
    /// migrated keys, or they would be moved again on every launch.
    ///
    /// ```swift
    /// let moved = try keychain.migrateFromUserDefaults(["apiKey", "sessionToken"], defaults: .standard)
    /// ```
    ///
    /// - Parameters:
    ///   - keys: The `UserDefaults` keys to move; each becomes the keychain key of the same name.
    ///   - defaults: The defaults to move them out of.
    /// - Returns: The keys that moved in this call, in the order given.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func migrateFromUserDefaults(_ keys: [String], defaults: UserDefaults) throws(KeychainError) -> [String] {
        // Another process may have migrated (and removed) these keys since this one read the
        // defaults: saving also reads the file again.
        _ = defaults.synchronize()  // a failure here shows again, and is reported, at the save below
        var pending: [(key: String, data: Data)] = []
        for key in keys {
            switch defaults.object(forKey: key) {
            case nil:
                continue
            case let string as String:
                pending.append((key, Data(string.utf8)))
            case let data as Data:
                pending.append((key, data))
            case let other?:
                throw KeychainError.invalidArgument.withContext(
                    "Migrating '\(key)' from UserDefaults into service '\(service)': a \(type(of: other)) value cannot move; only String and Data do"
                )
            }
        }
        var moved: [String] = []
        do throws(KeychainError) {
            for (key, data) in pending {
                try setData(data, forKey: key)
                defaults.removeObject(forKey: key)
                moved.append(key)
            }
        } catch {
            // The keys moved before the failure are removed durably too; the write's error is
            // the one to report (a failed save would be reported by the next run).
            if !moved.isEmpty { _ = defaults.synchronize() }
            throw error
        }
        if !moved.isEmpty, !defaults.synchronize() {
            throw KeychainError(status: errSecIO, context:
                "Migrating \(moved.map { "'\($0)'" }.joined(separator: ", ")) from UserDefaults into service '\(service)': "
                + "the values are in the keychain, but their removal from UserDefaults could not be saved, so a later launch "
                + "would migrate the old values again; make the UserDefaults file writable, then run the migration again")
        }
        return moved
    }
}
