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

/// The Unix file descriptors one received message carries (`SCM_RIGHTS`), owned by it: they are
/// closed when the last copy of the message is released, so a descriptor a peer sends with a call
/// nobody uses (any call but the few that take one) never stays open in the receiving process.
package final class DBusFileDescriptors: @unchecked Sendable, Equatable {
    /// The descriptors, in the order the message's `h` values index them.
    package let descriptors: [Int32]

    init(_ descriptors: [Int32]) {
        self.descriptors = descriptors
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// The descriptor an `h` value names, or nil when the message carries no descriptor at that
    /// index (a peer may send any index).
    package func descriptor(at index: UInt32) -> Int32? {
        Int(index) < descriptors.count ? descriptors[Int(index)] : nil
    }

    /// The same set of descriptors (the same object): two messages carry equal descriptors only
    /// when they are one received message.
    package static func == (lhs: DBusFileDescriptors, rhs: DBusFileDescriptors) -> Bool {
        lhs === rhs
    }
}
