import Foundation
import KeychainServices
import KeychainTestSupport
@testable import SecretService
#if canImport(Glibc)
import Glibc
#endif

/// An isolated keychain directory for one test: the `login` keychain and the collection metadata
/// in a fresh temporary folder, the cheap test KDF. Nothing process-wide is changed (environment,
/// default keychain): every test target runs in one process, and other suites rely on those.
/// The helpers below name the test's login keychain in each call (`kSecUseKeychain`).
enum IsolatedKeychains {
    /// The login keychain of the running `withStore` body.
    @TaskLocal static var loginKeychain: SecKeychain?

    /// Runs `body` with a new store over a fresh directory, then removes the directory.
    static func withStore(_ body: (SecretStore, String) throws -> Void) throws {
        let scratch = try TemporaryKeychain.forAppleAPI("ssmodel")
        // Locks and forgets this test's keychains only, not `SecKeychainLockAll()`: other suites'
        // keychains are open in this process at the same time, and locking them made their calls
        // fail with errSecInteractionNotAllowed (seen in a full run).
        defer { scratch.remove() }
        let directory = scratch.directory
        let loginPath = directory + "/login.keychain-db"
        let store = try SecretStore(loginKeychainPath: loginPath)
        try $loginKeychain.withValue(open(loginPath)) {
            try body(store, directory)
        }
    }

    /// `query` naming the test's login keychain (unless it names one already).
    private static func inLoginKeychain(_ query: [String: Any]) -> [String: Any] {
        var query = query
        if query[kSecUseKeychain as String] == nil, let loginKeychain { query[kSecUseKeychain as String] = loginKeychain }
        return query
    }

    /// `SecItemAdd` of a generic password, as `keychainctl add-generic-password -s S -a A` does.
    static func addGeneric(service: String, account: String, secret: String, keychainPath: String? = nil) -> OSStatus {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(secret.utf8),
        ]
        if let keychainPath { query[kSecUseKeychain as String] = open(keychainPath) }
        return SecItemAdd(inLoginKeychain(query) as CFDictionary, nil)
    }

    /// `SecItemAdd` of an internet password, as `keychainctl add-internet-password` does.
    static func addInternet(server: String, account: String, protocolCode: CFString, port: Int = 0, path: String = "", secret: String) -> OSStatus {
        let query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrAccount as String: account, kSecAttrProtocol as String: protocolCode,
            kSecAttrPort as String: port, kSecAttrPath as String: path, kSecValueData as String: Data(secret.utf8),
        ]
        return SecItemAdd(inLoginKeychain(query) as CFDictionary, nil)
    }

    /// `SecItemCopyMatching` of one item's data (`kSecMatchLimitOne`), or the status.
    static func lookup(_ query: [String: Any]) -> (OSStatus, String?) {
        var full = inLoginKeychain(query)
        full[kSecReturnData as String] = true
        full[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(full as CFDictionary, &result)
        return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    /// How many items match (`kSecMatchLimitAll`).
    static func count(_ query: [String: Any]) -> Int {
        var full = inLoginKeychain(query)
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
