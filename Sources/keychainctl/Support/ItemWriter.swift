import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// `SecItemAdd`, and with `-U` `SecItemUpdate` of the existing item, for the add commands.
enum ItemWriter {
    /// Adds `attributes` with `secret` (empty when nil) to `target`. On `errSecDuplicateItem` with
    /// `update`, changes the item matching `primaryKey` instead: its secret (if one was given) and
    /// `changes`.
    static func add(_ attributes: [String: Any], secret: Data?, accessible: Accessibility?, update: Bool,
                    primaryKey: [String: Any], changes: [String: Any], in target: KeychainTarget) throws {
        // A keychain that cannot log refuses before anything is stored.
        try AccessRecording.prepareToRecord(in: target)
        var item = attributes
        item[SecItemKey.valueData] = secret ?? Data()
        if let accessible { item[SecItemKey.accessible] = accessible.constant }
        var added: Int32 = StatusCode.success
        try target.performUnlocking("SecItemAdd") {
            added = KeychainItems.add(item, in: target)
            return added == StatusCode.duplicateItem && update ? StatusCode.success : added
        }
        guard added == StatusCode.duplicateItem else {
            return try AccessRecording.record(.create, [.init(item)], in: target)
        }
        let match = primaryKey
        var updates = changes
        if let secret { updates[SecItemKey.valueData] = secret }
        if let accessible { updates[SecItemKey.accessible] = accessible.constant }
        guard !updates.isEmpty else { return }
        try target.performUnlocking("SecItemUpdate") { KeychainItems.update(match, updates, in: target) }
        try AccessRecording.record(.update, [.init(primaryKey.merging(changes) { _, new in new })], in: target)
    }
}
