import Foundation
import KeychainKit
import KeychainKitTesting

/// A backend over an isolated keychain that records every call and can replace the status of
/// chosen calls, to test error paths and the exact dictionaries KeychainKit sends.
final class RecordingBackend: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.

    /// One SecItem call.
    struct Call {
        var operation: String
        var query: [String: Any]
        var attributesToUpdate: [String: Any]?
    }

    /// Returns a status to answer a call with instead of running it, or nil to run it.
    typealias Injection = @Sendable (_ operation: String, _ callIndex: Int) -> Int32?

    private let lock = NSLock()
    private var recorded: [Call] = []
    private let inner: KeychainBackend
    private let injection: Injection

    init(inner: KeychainBackend? = nil, injection: @escaping Injection = { _, _ in nil }) throws {
        self.inner = try inner ?? .isolated()
        self.injection = injection
    }

    var calls: [Call] { lock.withLock { recorded } }
    var operations: [String] { calls.map(\.operation) }

    private func record(_ call: Call) -> Int32? {
        let index = lock.withLock { () -> Int in
            recorded.append(call)
            return recorded.count - 1
        }
        return injection(call.operation, index)
    }

    var backend: KeychainBackend {
        KeychainBackend(
            add: { attributes in
                if let status = self.record(Call(operation: "add", query: attributes)) {
                    return .init(status: status)
                }
                return self.inner.add(attributes)
            },
            copyMatching: { query in
                if let status = self.record(Call(operation: "copyMatching", query: query)) {
                    return .init(status: status)
                }
                return self.inner.copyMatching(query)
            },
            update: { query, attributes in
                if let status = self.record(Call(operation: "update", query: query, attributesToUpdate: attributes)) {
                    return status
                }
                return self.inner.update(query, attributes)
            },
            delete: { query in
                if let status = self.record(Call(operation: "delete", query: query)) {
                    return status
                }
                return self.inner.delete(query)
            }
        )
    }
}
