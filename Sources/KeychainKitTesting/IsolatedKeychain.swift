import KeychainEngine
import KeychainKit
import KeychainVocabulary

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

    /// The four SecItem operations on `engine`. Internal: the engine is not part of KeychainKit's
    /// or this module's public API; tests reach it through ``isolated(accessGroups:)``.
    static func engine(_ engine: SecItemEngine) -> KeychainBackend {
        KeychainBackend(
            add: { attributes in
                let result = recorded(engine.add(attributes))
                return Response(status: result.status, value: result.value)
            },
            copyMatching: { query in
                let result = recorded(engine.copyMatching(query))
                return Response(status: result.status, value: result.value)
            },
            update: { query, attributesToUpdate in recorded(engine.updateOutcome(query, attributesToUpdate)).status },
            delete: { query in recorded(engine.deleteOutcome(query)).status }
        )
    }

    /// `outcome`, after recording for this thread what a status cannot carry (the failure's
    /// reason, the items a read left out), as the C functions do: `KeychainError.reason` reads
    /// it from there for this backend too.
    private static func recorded(_ outcome: SecItemResult) -> SecItemResult {
        FailureReport.beginCall()
        if let failure = outcome.failure { FailureReport.fail(failure) }
        FailureReport.skippedUnreadable(outcome.unreadableItems, first: outcome.firstUnreadableItem)
        return outcome
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
