import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What fprintd reports about the caller's fingerprints: the reader, the enrolled fingers, and
/// their digest, the "domain state" that `.biometryCurrentSet` items are bound to.
package struct BiometryState: Sendable, Equatable {
    /// The default reader's name.
    package let readerName: String
    /// The caller's enrolled fingers (fprintd's names, such as "right-index-finger"), sorted.
    package let enrolledFingers: [String]
    /// SHA-256 of the user, the reader and the enrolled fingers: it changes when a finger is
    /// enrolled or deleted (Apple's `evaluatedPolicyDomainState`).
    package let domainState: Data

    /// Whether at least one finger is enrolled.
    package var isEnrolled: Bool { !enrolledFingers.isEmpty }

    /// The state of `fingers` on the reader `readerName` for the calling user.
    init(readerName: String, enrolledFingers fingers: [String], userID: UInt32 = getuid()) {
        self.readerName = readerName
        self.enrolledFingers = fingers.sorted()
        var input = Data("KeychainKit biometry domain state 1".utf8)
        // Length-prefixed fields, so different lists never hash the same bytes.
        for field in [String(userID), readerName] + enrolledFingers {
            let bytes = Data(field.utf8)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).bigEndian) { input.append(contentsOf: $0) }
            input.append(bytes)
        }
        domainState = Data(SHA256.hash(data: input))
    }
}
