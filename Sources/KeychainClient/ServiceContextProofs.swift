#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import Synchronization

/// The keychain service's proof tokens held for this process's `LAContext`s: after the service
/// verified the keychain password answered through a context, its token goes with that context's
/// later calls to the same service, which then need no prompt (the service checks the token is
/// its own, live, and bound to this very process). Each entry holds its context weakly: a context
/// that is gone takes its proof with it, and a new context never inherits one.
enum ServiceContextProofs {
    private struct Entry: Sendable {
        weak var context: (any AuthenticationContextConvertible)?
        let socketPath: String
        let token: Data
    }

    private static let entries = Mutex<[Entry]>([])

    /// The proof held for `context` with the service at `socketPath`, if any.
    static func proof(for context: any AuthenticationContextConvertible, socketPath: String) -> Data? {
        entries.withLock { list in
            list.removeAll { $0.context == nil }
            return list.last { $0.context === context && $0.socketPath == socketPath }?.token
        }
    }

    /// Holds `token` for `context` with the service at `socketPath`.
    static func record(_ token: Data, for context: any AuthenticationContextConvertible, socketPath: String) {
        entries.withLock { list in
            list.removeAll { $0.context == nil || ($0.context === context && $0.socketPath == socketPath) }
            list.append(Entry(context: context, socketPath: socketPath, token: token))
        }
    }
}
