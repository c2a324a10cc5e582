import Foundation
import KeychainEngine
import KeychainServices
@testable import SecretService
#if canImport(Glibc)
import Glibc
#endif

/// An isolated keychain directory for one test: the default keychain, the device key and the
/// collection metadata all in a fresh temporary folder, the cheap test KDF, no sharing of
/// unlocks through the kernel keyring, keychainctl's access group (the daemon's). The default
/// keychain is process-wide, so the suites that use this are serialized.
enum IsolatedKeychains {
    /// Runs `body` with a new store over a fresh directory, then removes the directory.
    static func withStore(_ body: (SecretStore, String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-ssmodel-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        setenv("KEYCHAINKIT_KEYCHAIN", directory + "/login.keychain-db", 1)
        setenv("KEYCHAINKIT_DEVICE_KEY_FILE", directory + "/device.key", 1)
        setenv("KEYCHAINKIT_SESSION_KEYRING", "off", 1)
        // The daemon runs as `keychainctl secret-service`: its access group is keychainctl's.
        setenv("KEYCHAINKIT_APP_ID", "keychainctl", 1)
        unsetenv("KEYCHAINKIT_PASSWORD_FILE")
        KeychainRegistry.shared.useTestingKDF(true)
        KeychainRegistry.shared.setDefaultKeychainPath(nil)
        KeychainRegistry.shared.reloadConfiguration()
        defer {
            _ = SecKeychainLockAll()
            try? FileManager.default.removeItem(atPath: directory)  // test cleanup only
        }
        let store = try SecretStore()
        try body(store, directory)
    }

    /// `SecItemAdd` of a generic password, as `keychainctl add-generic-password -s S -a A` does.
    static func addGeneric(service: String, account: String, secret: String, keychainPath: String? = nil) -> OSStatus {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(secret.utf8),
        ]
        if let keychainPath { query[kSecUseKeychain as String] = open(keychainPath) }
        return SecItemAdd(query as CFDictionary, nil)
    }

    /// `SecItemAdd` of an internet password, as `keychainctl add-internet-password` does.
    static func addInternet(server: String, account: String, protocolCode: CFString, port: Int = 0, path: String = "", secret: String) -> OSStatus {
        let query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrAccount as String: account, kSecAttrProtocol as String: protocolCode,
            kSecAttrPort as String: port, kSecAttrPath as String: path, kSecValueData as String: Data(secret.utf8),
        ]
        return SecItemAdd(query as CFDictionary, nil)
    }

    /// `SecItemCopyMatching` of one item's data (`kSecMatchLimitOne`), or the status.
    static func lookup(_ query: [String: Any]) -> (OSStatus, String?) {
        var full = query
        full[kSecReturnData as String] = true
        full[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(full as CFDictionary, &result)
        return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    /// How many items match (`kSecMatchLimitAll`).
    static func count(_ query: [String: Any]) -> Int {
        var full = query
        full[kSecReturnAttributes as String] = true
        full[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        guard SecItemCopyMatching(full as CFDictionary, &result) == errSecSuccess else { return 0 }
        return (result as? [Any])?.count ?? 0
    }

    static func open(_ path: String) -> SecKeychain? {
        var keychain: SecKeychain?
        _ = SecKeychainOpen(path, &keychain)
        return keychain
    }
}

extension SecretValue {
    /// The secret as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
