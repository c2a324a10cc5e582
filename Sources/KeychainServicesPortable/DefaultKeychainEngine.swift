import Foundation
import KeychainEngine
import KeychainStore

/// The engine of the default keychain, kept between SecItem calls.
///
/// Finding the default keychain and making an engine for it at every call (its path from the
/// configuration, a look-up by path in the registry, the access groups, the authenticator, a new
/// object) cost several thousand instructions a call (finding the keychain alone 4,800 of a
/// 217,000-instruction read, issue 11). What it yields changes only when one of the
/// registry's settings does, which ``KeychainRegistry/settingsGeneration`` reports; the session's
/// unlock, which can change at any moment, is still followed at every call.
final class DefaultKeychainEngine: @unchecked Sendable {
    /// The process's one cache (the registry it reads is process-wide too).
    static let shared = DefaultKeychainEngine()

    private let lock = NSLock()
    private var cached: (generation: UInt64, engine: SecItemEngine)?

    /// The engine for the default keychain, opening the keychain on first use. Only a call that
    /// stores (`creatingKeychain`) creates a missing keychain; any other is `.keychainMissing`.
    func engine(creatingKeychain: Bool) throws(KeychainStoreError) -> SecItemEngine {
        let registry = KeychainRegistry.shared
        // Read before the keychain is resolved: a change made meanwhile makes the next call
        // resolve again instead of keeping an engine derived from older settings.
        let generation = registry.settingsGeneration
        // A keychain whose file was deleted or replaced is resolved again (the registry opens
        // what the path names now), once a call on it has reported the replacement.
        if let cached = lock.withLock({ cached }), cached.generation == generation, !cached.engine.database.wasReplaced {
            try registry.followSession(cached.engine.database)
            return cached.engine
        }
        let engine = SecItemCall.engine(for: try registry.database(at: registry.defaultKeychainPath, createIfMissing: creatingKeychain))
        lock.withLock { cached = (generation, engine) }
        return engine
    }
}
