#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The one place that decides where a SecItem call runs: in the keychain service when
/// `KEYCHAINKIT_SERVICE_SOCKET` (or the configuration) names its socket, which picks the keychain
/// and the caller's access groups from the caller's kernel-verified identity; otherwise in this
/// process, on the embedded engine.
///
/// A service that cannot be reached is `errSecNotAvailable` with the reason: the call never falls
/// back to a keychain file of this process, which the user's other programs could read.
package enum ItemCallRoute: Equatable, Sendable {
    /// The embedded engine, in this process.
    case embedded
    /// The keychain service at this socket.
    case service(socketPath: String)

    /// The route of this process's calls (read once per process, with the rest of the configuration).
    package static var current: ItemCallRoute {
        ProcessKeychains.registry.serviceSocketPath.map { .service(socketPath: $0) } ?? .embedded
    }

    /// The service's socket, or nil for the embedded mode.
    package static var socketPath: String? {
        ProcessKeychains.registry.serviceSocketPath
    }
}

/// One of the four SecItem calls.
package enum ItemOperation: Sendable {
    case add, copyMatching, update, delete

    /// The service's operation for it.
    package var serviceOperation: ServiceRequest.Operation {
        switch self {
        case .add: .add
        case .copyMatching: .copyMatching
        case .update: .update
        case .delete: .delete
        }
    }
}

extension ItemEdge {
    /// Runs one SecItem call on plain dictionaries (keys as Apple's strings, no Apple objects
    /// left but access-control and authentication-context objects) where ``ItemCallRoute`` says,
    /// on `keychain`. Only an add creates the default keychain when it is missing. The outcome is
    /// not recorded yet: the caller reports it (``KeychainClient/report(_:)``).
    package func perform(_ operation: ItemOperation, _ query: [String: Any], changes: [String: Any] = [:],
                         in keychain: KeychainLifecycle.ItemKeychain) -> SecItemResult {
        switch ItemCallRoute.current {
        case .service(let socketPath):
            if let refusal = ServiceItemCall.keychainRefusal(keychain) ?? (operation == .add ? ServiceItemCall.unservedRequest(query) : nil) {
                return SecItemResult(failure: refusal)
            }
            return ServiceItemCall.send(operation.serviceOperation, query, changes: changes, socketPath: socketPath,
                                        accessControlObject: accessControlObject)
        case .embedded:
            let engine: SecItemEngine
            do {
                engine = try lifecycle.itemEngine(keychain, creatingDefault: operation == .add)
            } catch {
                var refused = SecItemResult(status: error.status)
                refused.failure = error.failure
                return refused
            }
            switch operation {
            case .add: return engine.add(query)
            case .copyMatching: return engine.copyMatching(query)
            case .update: return engine.updateOutcome(query, changes)
            case .delete: return engine.deleteOutcome(query)
            }
        }
    }
}
