import Foundation
import KeychainEngine
import KeychainVocabulary

/// Apple: `SecAccessControl`, an immutable access-control object made by
/// `SecAccessControlCreateWithFlags` and passed under `kSecAttrAccessControl`.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible, AccessControlConvertible {
    /// The protection class and flags this object stands for.
    package let accessControlPolicy: AccessControlPolicy

    init(_ policy: AccessControlPolicy) { self.accessControlPolicy = policy }

    /// Equal when protection and flags are equal.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.accessControlPolicy == rhs.accessControlPolicy
    }

    /// Hashes protection and flags.
    public func hash(into hasher: inout Hasher) { hasher.combine(accessControlPolicy) }

    /// Protection class and flags, in hexadecimal.
    public var description: String {
        "<SecAccessControl protection: \(accessControlPolicy.protection.rawValue), flags: 0x\(String(accessControlPolicy.flags, radix: 16))>"
    }
}

/// Apple: `SecAccessControlCreateFlags`, with Apple's bit values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: CFOptionFlags
    /// Creates flags from raw bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Apple: any biometry or the device passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Apple: any enrolled biometry.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Apple: deprecated name of `biometryAny`.
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Apple: the biometry enrolled now; invalidated when the set changes.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Apple: deprecated name of `biometryCurrentSet`.
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Apple: the device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// Apple: a paired watch (deprecated name of `companion`).
    @available(*, deprecated, renamed: "companion")
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Apple: a paired companion device.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Apple: any one constraint suffices.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Apple: every constraint is required.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// Apple: constraints guard private-key operations instead of reads.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// Apple: an application-supplied password also encrypts the item.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// Apple: `SecAccessControlCreateWithFlags`. Returns nil and sets `error` (code -50, in the
/// OSStatus domain) for an unknown protection or an invalid combination of flags, by Apple's rules.
@discardableResult
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail() -> SecAccessControl? {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam)))
        return nil
    }
    guard let name = protection as? String, let protectionClass = ProtectionClass(rawValue: name) else { return fail() }
    do {
        return SecAccessControl(try AccessControlPolicy(protection: protectionClass, flags: UInt64(flags.rawValue)))
    } catch {
        return fail()
    }
}

/// Apple: `SecAccessControlGetTypeID`.
@discardableResult
public func SecAccessControlGetTypeID() -> CFTypeID { cfTypeID(forClass: SecAccessControl.self) }
