#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// Counts the keychain writes of ``ApplicationAccessStore`` and the bytes of secret data they
/// carry: what shows that a change of one item's list costs the same whatever the number of items
/// (tests count calls and bytes, not time).
package final class ApplicationAccessWriteCount: @unchecked Sendable {
    private let lock = ThreadLock()
    private var writeCalls = 0
    private var dataBytes = 0

    /// A counter at zero.
    package init() {}

    /// One `SecItemAdd`, `SecItemUpdate` or `SecItemDelete` carrying `bytes` of secret data.
    func count(bytes: Int) {
        lock.withLock {
            writeCalls += 1
            dataBytes += bytes
        }
    }

    /// The writes and bytes counted so far.
    package var total: (writes: Int, bytes: Int) {
        lock.withLock { (writeCalls, dataBytes) }
    }
}
