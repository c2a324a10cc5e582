import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices

/// A keychain over a fresh isolated backend.
func isolatedKeychain(
    service: String = "com.example.app",
    accessGroup: String? = nil,
    accessibility: Accessibility? = nil,
    synchronizable: Bool = false
) throws -> Keychain {
    Keychain(
        service: service,
        accessGroup: accessGroup,
        accessibility: accessibility,
        synchronizable: synchronizable,
        backend: try .isolated()
    )
}

/// Reads the raw attribute dictionary of one generic password through the keychain's backend.
func rawAttributes(of key: String, in keychain: Keychain, synchronizable: Bool = false) -> [String: Any]? {
    let response = keychain.backend.copyMatching([
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: keychain.service,
        kSecAttrAccount as String: key,
        kSecAttrSynchronizable as String: synchronizable,
        kSecReturnAttributes as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ])
    return response.value as? [String: Any]
}

/// A `UserDefaults` suite of its own; `cleanUp()` removes it.
struct ScratchDefaults {
    let suiteName = "KeychainKitTests.\(UUID().uuidString)"
    let defaults: UserDefaults

    init() throws {
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw KeychainError.invalidArgument.withContext("cannot create a UserDefaults suite")
        }
        self.defaults = defaults
    }

    /// A second `UserDefaults` object on the same suite, as a later launch would open it.
    func reopened() throws -> UserDefaults {
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw KeychainError.invalidArgument.withContext("cannot reopen a UserDefaults suite")
        }
        return defaults
    }

    func cleanUp() {
        defaults.removePersistentDomain(forName: suiteName)
    }
}

/// Every textual rendering through which a library could leak a value.
func renderings(of value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    var rendered = [String(describing: value), String(reflecting: value), dumped]
    if let error = value as? any Error {
        rendered.append(error.localizedDescription)
        rendered.append((error as? LocalizedError)?.errorDescription ?? "")
    }
    return rendered
}

/// Credentials as an app would store them.
struct Credentials: Codable, Equatable, Sendable {
    var username: String
    var password: String
}

/// A value guarded by a lock (Synchronization's `Mutex` needs macOS 15, the package supports 13).
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
