#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the conditions on the KeychainClient and KeychainServices dependencies
import KeychainClient
#else
import KeychainServices
#endif

/// The SecItem calls keychainctl makes on the items of the keychain a command names (the
/// password classes, as attribute dictionaries keyed by Apple's strings): KeychainClient's where
/// KeychainKit implements the keychain (one route to the service or the embedded engine, no CF
/// layer), Apple's Security on macOS (the keychain as `kSecUseKeychain`). Both return Apple's
/// statuses and results.
enum KeychainItems {
    #if KEYCHAINKIT_REIMPLEMENTED
    /// `SecItemAdd` in `target`: the status.
    static func add(_ attributes: [String: Any], in target: KeychainTarget) -> Int32 {
        KeychainClient.add(attributes, in: .file(path: target.path)).status
    }

    /// `SecItemCopyMatching` in `target`: the status and, on success, the result.
    static func copyMatching(_ query: [String: Any], in target: KeychainTarget) -> (status: Int32, result: Any?) {
        KeychainClient.copyMatching(query, in: .file(path: target.path))
    }

    /// `SecItemUpdate` in `target`: the status.
    static func update(_ query: [String: Any], _ changes: [String: Any], in target: KeychainTarget) -> Int32 {
        KeychainClient.update(query, changes, in: .file(path: target.path))
    }

    /// `SecItemDelete` in `target`: the status.
    static func delete(_ query: [String: Any], in target: KeychainTarget) -> Int32 {
        KeychainClient.delete(query, in: .file(path: target.path))
    }

    /// How many matching items the last read on this thread left out as undecryptable, and why
    /// the first of them could not be read (naming it).
    static var unreadableInLastRead: (count: Int, first: String?) {
        (KeychainClient.unreadableItemsInLastRead, KeychainClient.firstUnreadableItemInLastRead)
    }
    #else
    static func add(_ attributes: [String: Any], in target: KeychainTarget) -> Int32 {
        scoped(attributes, in: target) { SecItemAdd($0 as CFDictionary, nil) }
    }

    static func copyMatching(_ query: [String: Any], in target: KeychainTarget) -> (status: Int32, result: Any?) {
        var result: CFTypeRef?
        let status = scoped(query, in: target) { SecItemCopyMatching($0 as CFDictionary, &result) }
        return (status, result)
    }

    static func update(_ query: [String: Any], _ changes: [String: Any], in target: KeychainTarget) -> Int32 {
        scoped(query, in: target) { SecItemUpdate($0 as CFDictionary, changes as CFDictionary) }
    }

    static func delete(_ query: [String: Any], in target: KeychainTarget) -> Int32 {
        scoped(query, in: target) { SecItemDelete($0 as CFDictionary) }
    }

    /// Apple's API skips undecryptable items silently and says nothing about them.
    static var unreadableInLastRead: (count: Int, first: String?) { (0, nil) }

    /// Runs `call` on `query` limited to `target`'s keychain; a keychain that cannot be named
    /// fails the call rather than let it reach another keychain.
    private static func scoped(_ query: [String: Any], in target: KeychainTarget, _ call: ([String: Any]) -> OSStatus) -> OSStatus {
        var handle: SecKeychain?
        let opened = SecKeychainOpen(target.path, &handle)
        guard opened == errSecSuccess, let handle else { return opened == errSecSuccess ? errSecInvalidKeychain : opened }
        var scoped = appleKeyConstants(in: query)
        scoped[kSecUseKeychain as String] = handle
        return call(scoped)
    }

    /// `query` with a key item's class and type (which KeychainKeyItems writes as the numbers the
    /// keychain file stores: 1 and 0, 73 and 42) as Apple's constants, which are strings.
    private static func appleKeyConstants(in query: [String: Any]) -> [String: Any] {
        var translated = query
        switch query[kSecAttrKeyClass as String] as? Int {
        case 1?: translated[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate
        case 0?: translated[kSecAttrKeyClass as String] = kSecAttrKeyClassPublic
        default: break
        }
        switch query[kSecAttrKeyType as String] as? Int {
        case 73?: translated[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
        case 42?: translated[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
        default: break
        }
        return translated
    }
    #endif
}
