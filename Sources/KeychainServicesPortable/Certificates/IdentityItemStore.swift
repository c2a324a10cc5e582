import Foundation
import KeychainEngine

/// The SecItem calls an identity call is made of — on its certificate and its private key — and
/// where they run: the embedded keychain's engine (one transaction for both halves) or the
/// keychain service (a call per half; see ``isTransactional``).
protocol IdentityItemStore {
    /// `SecItemAdd` of one half (attributes and data, no objects).
    func add(_ attributes: [String: Any]) -> SecItemResult
    /// `SecItemCopyMatching` of one half; `releasingTokenKeyMaterial` lets a token-bound key's
    /// bytes reach the `SecKey` built from them (embedded only).
    func copyMatching(_ query: [String: Any], deferringPrivateKeyUsage: Bool, releasingTokenKeyMaterial: Bool) -> SecItemResult
    /// `SecItemUpdate` of one half.
    func updateOutcome(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> SecItemResult
    /// `SecItemDelete` of one half.
    func deleteOutcome(_ query: [String: Any]) -> SecItemResult
    /// Runs `body`, as one transaction when ``isTransactional``.
    func atomically(_ body: () -> SecItemResult) -> SecItemResult
    /// Whether ``atomically(_:)`` undoes what a failed `body` did; when not, the identity calls
    /// undo a half-finished add themselves.
    var isTransactional: Bool { get }
    /// The engine a `.privateKeyUsage` key of a returned identity checks its access control with
    /// at each operation, or nil where keys are not used that way (the service).
    var keyUseEngine: SecItemEngine? { get }
}

extension SecItemEngine: IdentityItemStore {
    /// One keychain transaction.
    var isTransactional: Bool { true }
    /// This engine.
    var keyUseEngine: SecItemEngine? { self }
}

/// The identity calls of a process in service mode: each half goes to the keychain service as
/// its own SecItem call, under the process's claimed application identifier and access groups.
struct ServiceIdentityItemStore: IdentityItemStore {
    /// The service's socket.
    let socketPath: String

    func add(_ attributes: [String: Any]) -> SecItemResult {
        SecItemServiceRoute.send(.add, attributes, socketPath: socketPath)
    }

    func copyMatching(_ query: [String: Any], deferringPrivateKeyUsage: Bool, releasingTokenKeyMaterial: Bool) -> SecItemResult {
        SecItemServiceRoute.send(.copyMatching, query, socketPath: socketPath)
    }

    func updateOutcome(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> SecItemResult {
        SecItemServiceRoute.send(.update, query, changes: attributesToUpdate, socketPath: socketPath)
    }

    func deleteOutcome(_ query: [String: Any]) -> SecItemResult {
        SecItemServiceRoute.send(.delete, query, socketPath: socketPath)
    }

    /// The calls of `body` one after the other: the service runs each as its own transaction.
    func atomically(_ body: () -> SecItemResult) -> SecItemResult { body() }

    var isTransactional: Bool { false }
    var keyUseEngine: SecItemEngine? { nil }
}
