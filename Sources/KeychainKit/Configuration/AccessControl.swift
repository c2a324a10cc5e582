import KeychainServices

/// Who must authenticate before an item's secret can be read: Apple's access-control flags
/// (`SecAccessControlCreateFlags`), as a value.
///
/// Build one from the named constraints and combine them with ``or(_:)`` and ``and(_:)``:
///
/// ```swift
/// let keychain = Keychain(service: "com.example.vault", accessibility: .whenPasscodeSetThisDeviceOnly)
///     .accessControl(.biometryCurrentSet.or(.devicePasscode))
/// ```
///
/// KeychainKit turns it into a `SecAccessControl` with `SecAccessControlCreateWithFlags` when it
/// writes an item, using the keychain's ``Accessibility`` as the protection class, and stores it
/// under `kSecAttrAccessControl` instead of `kSecAttrAccessible` (Apple rejects both at once).
/// The constraints guard reading the secret; writing and deleting stay allowed.
///
/// The Security framework rejects some combinations with `errSecParam`, which surfaces as a
/// ``KeychainError`` when the item is written: `or` together with `and`, biometry "any" together
/// with biometry "current set", user presence together with another constraint.
/// Access control cannot be combined with a synchronizable keychain.
public struct AccessControl: Sendable, Hashable {
    /// The raw value of the `SecAccessControlCreateFlags` this access control stands for.
    public let rawFlags: UInt

    /// Creates an access control from raw `SecAccessControlCreateFlags` bits, for flags without
    /// a named constructor here.
    ///
    /// - Parameter rawFlags: `SecAccessControlCreateFlags(...).rawValue`.
    public init(rawFlags: UInt) {
        self.rawFlags = rawFlags
    }

    /// Creates an access control from Security's flags.
    ///
    /// - Parameter flags: The flags to pass to `SecAccessControlCreateWithFlags`.
    public init(_ flags: SecAccessControlCreateFlags) {
        self.rawFlags = UInt(flags.rawValue)
    }

    /// The flags passed to `SecAccessControlCreateWithFlags`.
    public var flags: SecAccessControlCreateFlags {
        SecAccessControlCreateFlags(rawValue: .init(rawFlags))
    }

    /// Biometry (any enrolled finger or face) or the device passcode
    /// (`kSecAccessControlUserPresence`).
    public static let userPresence = AccessControl(.userPresence)

    /// Any enrolled biometry, also after enrolment changes (`kSecAccessControlBiometryAny`).
    public static let biometryAny = AccessControl(.biometryAny)

    /// Biometry as currently enrolled: adding or removing a finger or face makes the item
    /// unreadable (`kSecAccessControlBiometryCurrentSet`).
    ///
    /// The item is bound to the set enrolled when it is written, so writing it needs one: with
    /// no biometry enrolled — on Linux, no fingerprint service (fprintd) answering, no reader, or
    /// no enrolled finger — writing fails with ``KeychainError/authFailed`` and nothing is
    /// stored, alone or combined with another constraint (`.biometryCurrentSet.or(.devicePasscode)`
    /// too). On Linux the error's ``KeychainError/reason`` names what was missing. Use
    /// ``biometryAny`` or ``userPresence`` for items that must be writable before a finger is
    /// enrolled.
    public static let biometryCurrentSet = AccessControl(.biometryCurrentSet)

    /// The device passcode (`kSecAccessControlDevicePasscode`).
    public static let devicePasscode = AccessControl(.devicePasscode)

    /// An application-supplied password, given through `LAContext.setCredential(_:type:)`
    /// (`kSecAccessControlApplicationPassword`).
    public static let applicationPassword = AccessControl(.applicationPassword)

    /// No constraint beyond the protection class: a `SecAccessControl` with empty flags.
    public static let none = AccessControl(rawFlags: 0)

    /// Either constraint suffices (`kSecAccessControlOr`).
    ///
    /// - Parameter other: Another constraint.
    /// - Returns: The union of both constraints with the `or` flag.
    public func or(_ other: AccessControl) -> AccessControl {
        AccessControl(flags.union(other.flags).union(.or))
    }

    /// Both constraints are required (`kSecAccessControlAnd`).
    ///
    /// - Parameter other: Another constraint.
    /// - Returns: The union of both constraints with the `and` flag.
    public func and(_ other: AccessControl) -> AccessControl {
        AccessControl(flags.union(other.flags).union(.and))
    }
}

extension AccessControl {
    /// Creates the `SecAccessControl` for this access control and a protection class.
    ///
    /// The corresponding C function is `SecAccessControlCreateWithFlags`.
    ///
    /// - Parameter accessibility: The protection class of the item.
    /// - Returns: The access-control object to store under `kSecAttrAccessControl`.
    /// - Throws: A ``KeychainError`` with the status of the `CFError` Security returned, usually
    ///   `errSecParam` for an invalid combination.
    public func makeSecAccessControl(accessibility: Accessibility) throws(KeychainError) -> SecAccessControl {
        var error: Unmanaged<CFError>?
        guard let accessControl = SecAccessControlCreateWithFlags(nil, accessibility.attributeValue, flags, &error) else {
            let code = error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? Int(errSecParam)
            throw KeychainError(
                status: OSStatus(truncatingIfNeeded: code),
                context: "Creating access control \(self) with protection \(accessibility)"
            )
        }
        return accessControl
    }
}

extension AccessControl: CustomStringConvertible {
    /// The flag names joined by `|`, for example `biometryCurrentSet|devicePasscode|or`.
    public var description: String {
        let names: [(SecAccessControlCreateFlags, String)] = [
            (.userPresence, "userPresence"), (.biometryAny, "biometryAny"),
            (.biometryCurrentSet, "biometryCurrentSet"), (.devicePasscode, "devicePasscode"),
            (.or, "or"), (.and, "and"), (.applicationPassword, "applicationPassword"),
        ]
        let known = names.filter { flags.contains($0.0) }.map(\.1)
        let rest = flags.subtracting(SecAccessControlCreateFlags(names.map(\.0)))
        let all = known + (rest.isEmpty ? [] : ["0x\(String(UInt(rest.rawValue), radix: 16))"])
        return all.isEmpty ? "none" : all.joined(separator: "|")
    }
}
