// The MacTypes.h names that keychain code reaches through `import Security` on Apple
// platforms: Darwin declares `noErr`, `FourCharCode` and `DarwinBoolean` (the C `Boolean` of
// Core Foundation and the legacy keychain's structures), so they are spelled the same here.

/// Apple (Darwin, MacTypes.h): `FourCharCode`, four ASCII characters packed big-endian into a
/// 32-bit number, as `kSecAttrCreator` and `kSecAttrType` hold them.
public typealias FourCharCode = UInt32

/// Apple (Darwin, MacTypes.h): `noErr`, the status of a call that succeeded (0, the same value
/// as `errSecSuccess`).
public var noErr: OSStatus { 0 }

/// Apple (Darwin, MacTypes.h): `DarwinBoolean`, the C `Boolean` (an `unsigned char`) as Swift
/// imports it, for example in `SecKeychainSettings`.
///
/// As on Apple platforms it is written with a Boolean literal (`lockOnSleep: true`), built from
/// a `Bool` (`DarwinBoolean(flag)`) and read with `boolValue`; it is not a `Bool`, so
/// `if settings.lockOnSleep` does not compile on either platform.
@frozen
public struct DarwinBoolean: ExpressibleByBooleanLiteral, Sendable {
    @usableFromInline var storage: UInt8

    /// Apple: a `DarwinBoolean` holding `value`.
    @inlinable
    public init(_ value: Bool) { storage = value ? 1 : 0 }

    /// Apple: the value as a `Bool` (any non-zero C value is true).
    @inlinable
    public var boolValue: Bool { storage != 0 }

    /// Apple: the literal `true` or `false`.
    @inlinable
    public init(booleanLiteral value: Bool) { self.init(value) }
}

extension DarwinBoolean: CustomStringConvertible {
    /// Apple: `"true"` or `"false"`.
    public var description: String { boolValue.description }
}

extension DarwinBoolean: Equatable {
    /// Apple: equal when both are true or both are false (whatever non-zero C value made them true).
    @inlinable
    public static func == (lhs: DarwinBoolean, rhs: DarwinBoolean) -> Bool { lhs.boolValue == rhs.boolValue }
}
