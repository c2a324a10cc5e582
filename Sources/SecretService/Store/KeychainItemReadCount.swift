#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// Counts the items the store decrypts (each item whose attributes or secret a keychain query
/// returns) and its full reads of a collection: what shows that a lookup decrypts its item once and
/// that the access log's checkpoint does not make the index read everything again (tests count
/// reads, not time).
package final class KeychainItemReadCount: @unchecked Sendable {
    private let lock = ThreadLock()
    private var decryptedItems = 0
    private var fullReadCount = 0

    /// A counter at zero.
    package init() {}

    /// `items` items decrypted by one query.
    func count(decrypted items: Int) {
        lock.withLock { decryptedItems += items }
    }

    /// One full read of a collection (every item decrypted).
    func countFullRead() {
        lock.withLock { fullReadCount += 1 }
    }

    /// The items decrypted so far.
    package var decrypted: Int { lock.withLock { decryptedItems } }
    /// The full reads so far.
    package var fullReads: Int { lock.withLock { fullReadCount } }
}
