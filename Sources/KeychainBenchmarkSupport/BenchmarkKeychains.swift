import Foundation
import KeychainEngine
import KeychainServicesPortable
import KeychainStore
import KeychainVocabulary

/// Entry points for KeychainKit's benchmarks package (`Benchmarks/`, a SwiftPM package of its own)
/// only: not an API for apps or tests, and not stable. The benchmarks drive the keychain through
/// `SecItem*` and `Keychain` as an app does; these cover only what an app cannot do and a benchmark's
/// setup needs: keychain files made with the cheap test KDF and filled fast, opened without a
/// prompt, and the session-keyring sharing switched on by hand.
///
/// A module of its own, like the reliability suite's torture tool, because benchmark setup works on
/// the store itself; it is a library product (`_KeychainBenchmarkSupport`: not API, not stable) only
/// so that the separate benchmarks package can link it (`import KeychainBenchmarkSupport`).
public enum BenchmarkKeychains {
    /// The registry `SecItem*` works on in this process (the Apple edge's), which the benchmarks'
    /// fixtures set up for the calls they time.
    private static var registry: KeychainRegistry { KeychainLifecycle.apple.registry }

    /// Lets this process create and open keychains with the cheap test KDF (scrypt N = 2^4), which
    /// protects a password far less than a real keychain's calibrated scrypt.
    public static func allowTestingKDF() {
        registry.useTestingKDF(true)
    }

    /// The path of this process's default keychain, as `SecItem*` resolves it now.
    public static var defaultKeychainPath: String { registry.defaultKeychainPath }

    /// Adds one item per dictionary of `items` to the keychain file at `path` (created if missing,
    /// with the test KDF unless `calibratedKDF`), through the engine behind `SecItemAdd`: the same
    /// parsing, defaults and encryption, one transaction per item. The file is closed on return,
    /// so SQLite has checkpointed its WAL into it.
    ///
    /// - Throws: ``BenchmarkKeychainError`` naming the first item that was not added, or the
    ///   store's error if the file cannot be opened.
    public static func populate(path: String, password: Data?, deviceKeyPath: String, calibratedKDF: Bool,
                                accessGroup: String, items: some Sequence<[String: Any]>) throws {
        let database = try KeychainDatabase.open(path: path, password: password,
                                                 options: options(deviceKeyPath, calibratedKDF: calibratedKDF))
        let engine = SecItemEngine(database: database, accessGroups: AccessGroups([accessGroup]),
                                   authenticator: OwnerAuthenticator(pinentry: nil))
        for (index, attributes) in items.enumerated() {
            let status = engine.add(attributes).status
            guard status == KeychainStatus.success.rawValue else {
                throw BenchmarkKeychainError("populating \(path): SecItemAdd status \(status) at item \(index)")
            }
        }
    }

    /// Opens the keychain file at `path` (test KDF accepted) with `password`, without registering
    /// it: a new, independent handle with its own SQLite connection, what a process pays before
    /// its first item call.
    public static func open(path: String, password: Data?, deviceKeyPath: String,
                            rollbackAnchorDirectory: String? = nil) throws -> BenchmarkKeychain {
        BenchmarkKeychain(database: try KeychainDatabase.open(
            path: path, password: password,
            options: options(deviceKeyPath, calibratedKDF: false, rollbackAnchorDirectory: rollbackAnchorDirectory)))
    }

    /// Opens the keychain file at `path` as ``open(path:password:deviceKeyPath:rollbackAnchorDirectory:)``
    /// does and registers the handle, so that `SecItem*` calls naming this path (or finding it
    /// as the default keychain) use it, unlocked.
    public static func openAndRegister(path: String, password: Data?, deviceKeyPath: String,
                                       rollbackAnchorDirectory: String? = nil) throws -> BenchmarkKeychain {
        let keychain = try open(path: path, password: password, deviceKeyPath: deviceKeyPath,
                                rollbackAnchorDirectory: rollbackAnchorDirectory)
        registry.register(keychain.database)
        return keychain
    }

    /// Forgets the registered keychain at `path` (its handle is closed when the last reference goes).
    public static func forget(path: String) {
        registry.forget(path: path)
    }

    /// Publishes `keychain`'s unlock to the session's kernel keyring and marks it as the
    /// session's, as an unlock does when sharing is on. Returns false if the keyring refused it.
    public static func shareUnlockWithSession(_ keychain: BenchmarkKeychain) throws -> Bool {
        guard try SessionKeyring.publish(keychain.database, sharing: true) else { return false }
        registry.markUnlockSharedWithSession(keychain.database)
        return true
    }

    /// Removes what ``shareUnlockWithSession(_:)`` published from the kernel keyring.
    @discardableResult
    public static func withdrawSessionUnlock(_ keychain: BenchmarkKeychain) -> Bool {
        SessionKeyring.withdraw(SessionKeyring.Entry.allCases, of: keychain.database, sharing: true)
    }

    private static func options(_ deviceKeyPath: String, calibratedKDF: Bool,
                                rollbackAnchorDirectory: String? = nil) -> KeychainDatabase.Options {
        KeychainDatabase.Options(deviceKeyPath: deviceKeyPath, newKeychainKDF: calibratedKDF ? nil : .testing(),
                                 allowTestingKDF: true, createIfMissing: true,
                                 rollbackAnchorDirectory: rollbackAnchorDirectory)
    }
}

/// An open keychain file, held by a benchmark (see ``BenchmarkKeychains``). The file stays open
/// while this value (or the registry, if it was registered) holds it.
public final class BenchmarkKeychain: @unchecked Sendable {
    let database: KeychainDatabase

    init(database: KeychainDatabase) { self.database = database }

    /// The keychain file's path.
    public var path: String { database.path }
}

/// Why a benchmark's keychain could not be set up.
public struct BenchmarkKeychainError: Error, CustomStringConvertible {
    /// What failed, and where.
    public let description: String

    init(_ description: String) { self.description = description }
}
