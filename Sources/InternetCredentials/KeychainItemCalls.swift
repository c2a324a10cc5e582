#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the conditions on the KeychainClient and KeychainServices dependencies
import KeychainClient
import KeychainVocabulary
#else
import KeychainServices
#endif

/// The four SecItem calls this module makes, on Swift dictionaries keyed by ``SecItemKey``:
/// KeychainClient's where KeychainKit implements the keychain (no CF types, no Foundation in the
/// tools), Apple's Security on Apple platforms. Both return Apple's statuses and results.
enum KeychainItemCalls {
    #if KEYCHAINKIT_REIMPLEMENTED
    /// `SecItemAdd`: the status.
    static func add(_ attributes: [String: Any]) -> Int32 { KeychainClient.add(attributes).status }

    /// `SecItemCopyMatching`: the status and, on success, the result.
    static func copyMatching(_ query: [String: Any]) -> (status: Int32, result: Any?) { KeychainClient.copyMatching(query) }

    /// `SecItemUpdate`: the status.
    static func update(_ query: [String: Any], _ changes: [String: Any]) -> Int32 { KeychainClient.update(query, changes) }

    /// `SecItemDelete`: the status.
    static func delete(_ query: [String: Any]) -> Int32 { KeychainClient.delete(query) }

    /// The cause and the fix of this thread's last failed call, when the keychain knew more than `status` says.
    static func failureReason(for status: Int32) -> String? { KeychainClient.failureReason(for: status) }

    /// Apple's message for `status` (`SecCopyErrorMessageString`'s text).
    static func message(for status: Int32) -> String { KeychainStatusMessages.message(for: status) }
    #else
    static func add(_ attributes: [String: Any]) -> Int32 { SecItemAdd(attributes as CFDictionary, nil) }

    static func copyMatching(_ query: [String: Any]) -> (status: Int32, result: Any?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    static func update(_ query: [String: Any], _ changes: [String: Any]) -> Int32 {
        SecItemUpdate(query as CFDictionary, changes as CFDictionary)
    }

    static func delete(_ query: [String: Any]) -> Int32 { SecItemDelete(query as CFDictionary) }

    /// Apple's Security keeps no cause beyond the status.
    static func failureReason(for status: Int32) -> String? { nil }

    static func message(for status: Int32) -> String {
        SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
    }
    #endif
}

/// The statuses this module tests for, with Apple's values.
enum KeychainItemStatus {
    #if KEYCHAINKIT_REIMPLEMENTED
    static let success = KeychainStatus.success.rawValue
    static let param = KeychainStatus.param.rawValue
    static let duplicateItem = KeychainStatus.duplicateItem.rawValue
    static let itemNotFound = KeychainStatus.itemNotFound.rawValue
    /// `errSecInternalError` (Apple's SecBase.h), which the keychain itself never returns.
    static let internalError: Int32 = -67671
    #else
    static let success = errSecSuccess
    static let param = errSecParam
    static let duplicateItem = errSecDuplicateItem
    static let itemNotFound = errSecItemNotFound
    static let internalError = errSecInternalError
    #endif
}

#if !KEYCHAINKIT_REIMPLEMENTED
/// Apple's `kSec…` constants as Swift strings, under the names KeychainClient gives them where
/// KeychainKit implements the keychain.
enum SecItemKey {
    static let itemClass = kSecClass as String
    static let internetPassword = kSecClassInternetPassword as String
    static let accessGroup = kSecAttrAccessGroup as String
    static let account = kSecAttrAccount as String
    static let server = kSecAttrServer as String
    static let `protocol` = kSecAttrProtocol as String
    static let port = kSecAttrPort as String
    static let path = kSecAttrPath as String
    static let label = kSecAttrLabel as String
    static let comment = kSecAttrComment as String
    static let matchLimit = kSecMatchLimit as String
    static let matchLimitAll = kSecMatchLimitAll as String
    static let returnAttributes = kSecReturnAttributes as String
    static let returnData = kSecReturnData as String
    static let returnPersistentRef = kSecReturnPersistentRef as String
    static let valueData = kSecValueData as String
    static let valuePersistentRef = kSecValuePersistentRef as String
}
#endif
