import KeychainEngine
import KeychainKit

extension KeychainBackend {
    /// A new, empty, in-memory keychain that only this backend sees: Apple's SecItem semantics
    /// (`SecItemEngine`), no entitlement, no prompt, nothing written to disk, nothing shared with
    /// other tests or with the user's keychain.
    ///
    /// Create one per test:
    ///
    /// ```swift
    /// @Test func storesTheToken() throws {
    ///     let keychain = Keychain(service: "com.example.app", backend: try .isolated())
    ///     try keychain.set("t0ken", forKey: "token")
    ///     #expect(try keychain.string(forKey: "token") == "t0ken")
    /// }
    /// ```
    ///
    /// - Parameter accessGroups: The access groups the simulated app is entitled to; the first is
    ///   the default group for new items.
    /// - Returns: A backend over a fresh `SecItemEngine.ephemeral(accessGroups:)`.
    /// - Throws: The engine's error if it cannot be created.
    public static func isolated(accessGroups: [String] = [IsolatedKeychain.defaultAccessGroup]) throws -> KeychainBackend {
        .engine(try SecItemEngine.ephemeral(accessGroups: accessGroups))
    }
}

/// Helpers for tests that use an isolated keychain.
public enum IsolatedKeychain {
    /// The access group an isolated keychain is entitled to by default.
    public static let defaultAccessGroup = "KEYCHAINKIT.tests"

    /// A keychain for `service` over a new isolated backend.
    ///
    /// - Parameters:
    ///   - service: The service of the items.
    ///   - accessGroups: The access groups the simulated app is entitled to.
    /// - Returns: A keychain that shares nothing with any other.
    /// - Throws: The engine's error if it cannot be created.
    public static func keychain(service: String = "com.example.tests", accessGroups: [String] = [defaultAccessGroup]) throws -> Keychain {
        Keychain(service: service, backend: try .isolated(accessGroups: accessGroups))
    }
}
