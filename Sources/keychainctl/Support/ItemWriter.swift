import InternetCredentials
import Foundation
import KeychainServices

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
        item[kSecValueData as String] = secret ?? Data()
        if let accessible { item[kSecAttrAccessible as String] = accessible.constant }
        var added: OSStatus = errSecSuccess
        try target.performUnlocking("SecItemAdd") {
            added = KeychainItems.add(item, in: target)
            return added == errSecDuplicateItem && update ? errSecSuccess : added
        }
        guard added == errSecDuplicateItem else {
            return try AccessRecording.record(.create, [.init(item)], in: target)
        }
        let match = primaryKey
        var updates = changes
        if let secret { updates[kSecValueData as String] = secret }
        if let accessible { updates[kSecAttrAccessible as String] = accessible.constant }
        guard !updates.isEmpty else { return }
        try target.performUnlocking("SecItemUpdate") { KeychainItems.update(match, updates, in: target) }
        try AccessRecording.record(.update, [.init(primaryKey.merging(changes) { _, new in new })], in: target)
    }
}
