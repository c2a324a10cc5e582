#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// SHA-256 digests of executables already hashed, by file identity and change times: hashing a
/// large program at every connection would cost more than the call. A write to the file changes
/// its ctime, which its writer cannot set back, so a changed program is hashed again.
package final class ExecutableHashCache: @unchecked Sendable {
    /// What identifies one version of a file's content.
    package struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var changed: Int
    }

    /// An empty cache.
    package init() {}

    private let lock = ThreadLock()
    private var digests: [Key: String] = [:]
    /// Entries kept at most; the cache is emptied when full (programs are few; a flood is not).
    private let capacity = 1024

    /// The digest of the file version `key`, if known.
    package func hash(for key: Key) -> String? { lock.withLock { digests[key] } }

    /// Records `digest` for `key`.
    package func remember(_ digest: String, for key: Key) {
        lock.withLock {
            if digests.count >= capacity { digests.removeAll() }
            digests[key] = digest
        }
    }
}
