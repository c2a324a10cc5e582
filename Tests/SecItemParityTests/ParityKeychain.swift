// Where the parity suite keeps its items. The suite imports only KeychainServices, so it compiles
// against Apple's Security on a Mac as well as against KeychainKit on Linux:
// - Linux: a fresh keychain file in a temporary directory, named in every call (kSecUseKeychain),
//   so no test touches the user's default keychain.
// - macOS: the data-protection keychain (kSecUseDataProtectionKeychain), which needs a test runner
//   signed with a keychain-access-groups entitlement (see docs/PORTING.md); every item is made
//   under a service unique to the test and deleted afterwards.

import Foundation
import KeychainServices

/// A scope of the keychain for one test: a unique service name and the dictionary keys that put
/// every call into the suite's keychain.
struct ParityKeychain {
    /// The service (and, for internet passwords, the server) every item of this test uses.
    let service = "SecItemParity.\(UUID().uuidString)"

    #if !canImport(Security)
    /// One passwordless keychain file for the whole suite, in a temporary directory.
    private static let keychain: SecKeychain? = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("secitem-parity-\(UUID().uuidString).keychain-db").path
        var created: SecKeychain?
        guard SecKeychainCreate(path, 0, nil, false, nil, &created) == errSecSuccess else { return nil }
        return created
    }()
    #endif

    /// `dictionary` with the keys that select the suite's keychain.
    func scoped(_ dictionary: [CFString: Any]) -> CFDictionary {
        var scoped = dictionary
        #if canImport(Security)
        scoped[kSecUseDataProtectionKeychain] = true
        #else
        if let keychain = Self.keychain { scoped[kSecUseKeychain] = keychain }
        #endif
        return scoped as CFDictionary
    }

    /// A generic password query of this test's service.
    func password(_ account: String, _ extra: [CFString: Any] = [:]) -> [CFString: Any] {
        var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account]
        query.merge(extra) { $1 }
        return query
    }

    /// An internet password query on this test's server.
    func internetPassword(_ account: String, _ extra: [CFString: Any] = [:]) -> [CFString: Any] {
        var query: [CFString: Any] = [kSecClass: kSecClassInternetPassword, kSecAttrServer: "\(service).example",
                                      kSecAttrAccount: account]
        query.merge(extra) { $1 }
        return query
    }

    @discardableResult
    func add(_ attributes: [CFString: Any]) -> (OSStatus, CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemAdd(scoped(attributes), &result)
        return (status, result)
    }

    func copy(_ query: [CFString: Any]) -> (OSStatus, CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(scoped(query), &result)
        return (status, result)
    }

    func update(_ query: [CFString: Any], _ changes: [CFString: Any]) -> OSStatus {
        SecItemUpdate(scoped(query), changes as CFDictionary)
    }

    func delete(_ query: [CFString: Any]) -> OSStatus {
        SecItemDelete(scoped(query))
    }

    /// Removes every item of this test (both password classes).
    func removeAll() {
        SecItemDelete(scoped([kSecClass: kSecClassGenericPassword, kSecAttrService: service]))
        SecItemDelete(scoped([kSecClass: kSecClassInternetPassword, kSecAttrServer: "\(service).example"]))
    }
}
