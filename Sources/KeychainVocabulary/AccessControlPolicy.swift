#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `SecAccessControlCreateWithFlags` describes: a protection class plus constraint flags,
/// validated by Apple's rules. Stored with the item (inside its encrypted payload).
package struct AccessControlPolicy: Sendable, Hashable {
    /// The accessibility class the item is stored under.
    package let protection: ProtectionClass
    /// The `SecAccessControlCreateFlags` bits, exactly as Apple numbers them.
    package let flags: UInt64
    /// For a `.biometryCurrentSet` item: the digest of the enrolled fingers when it was stored
    /// (its biometric "domain state"); reads fail once the enrolled set differs. Nil otherwise,
    /// and for items stored while no fingerprint service was available.
    package private(set) var biometryDomainState: Data?

    /// `kSecAccessControlUserPresence`.
    package static let userPresence: UInt64 = 1 << 0
    /// `kSecAccessControlBiometryAny`.
    package static let biometryAny: UInt64 = 1 << 1
    /// `kSecAccessControlBiometryCurrentSet`.
    package static let biometryCurrentSet: UInt64 = 1 << 3
    /// `kSecAccessControlDevicePasscode`.
    package static let devicePasscode: UInt64 = 1 << 4
    /// `kSecAccessControlWatch` / `kSecAccessControlCompanion`.
    package static let companion: UInt64 = 1 << 5
    /// `kSecAccessControlOr`.
    package static let or: UInt64 = 1 << 14
    /// `kSecAccessControlAnd`.
    package static let and: UInt64 = 1 << 15
    /// `kSecAccessControlPrivateKeyUsage`.
    package static let privateKeyUsage: UInt64 = 1 << 30
    /// `kSecAccessControlApplicationPassword`.
    package static let applicationPassword: UInt64 = 1 << 31

    /// Why a combination of flags is refused (Apple answers `errSecParam` for each).
    package enum ValidationError: Error, Sendable, Equatable {
        /// `Or` and `And` together.
        case orAndAnd
        /// `BiometryAny` and `BiometryCurrentSet` together.
        case twoBiometryFlags
        /// `UserPresence` with another constraint (only ApplicationPassword and PrivateKeyUsage may join it).
        case userPresenceCombined
    }

    /// Validates flags as `SecAccessControlCreateWithFlags` does.
    package init(protection: ProtectionClass, flags: UInt64) throws(ValidationError) {
        if flags & Self.or != 0 && flags & Self.and != 0 { throw .orAndAnd }
        if flags & Self.biometryAny != 0 && flags & Self.biometryCurrentSet != 0 { throw .twoBiometryFlags }
        if flags & Self.userPresence != 0 {
            let others = flags & ~(Self.userPresence | Self.applicationPassword | Self.privateKeyUsage)
            if others != 0 { throw .userPresenceCombined }
        }
        self.protection = protection
        self.flags = flags
    }

    /// The policy of an item stored without access control: its protection class, no constraints
    /// (what Apple synthesises for `kSecAttrAccessControl` in results).
    package static func unconstrained(_ protection: ProtectionClass) -> AccessControlPolicy {
        AccessControlPolicy(validated: protection, flags: 0)
    }

    private init(validated protection: ProtectionClass, flags: UInt64) {
        self.protection = protection
        self.flags = flags
    }

    /// This policy bound to the biometric domain state `state` (see `biometryDomainState`).
    package func binding(biometryDomainState state: Data?) -> AccessControlPolicy {
        var bound = self
        bound.biometryDomainState = state
        return bound
    }

    /// Whether reading the item's data requires a constraint to be satisfied.
    package var hasConstraints: Bool {
        flags & (Self.userPresence | Self.biometryAny | Self.biometryCurrentSet | Self.devicePasscode
            | Self.companion | Self.applicationPassword) != 0
    }
}
