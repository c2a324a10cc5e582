/// The `OSStatus` values the keychain returns, each declared here and nowhere else (the
/// model of GRDB's `ResultCode`: one table of codes, named once).
///
/// The values are Apple's (SecBase.h, MacErrors.h, and `errSecInternal` from SecBasePriv.h).
/// KeychainServices declares Apple's public `errSec…` constants with Apple's names and types,
/// reading their values from this table; the store and the engine, which must not depend on
/// KeychainServices, use this table directly.
package struct KeychainStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `OSStatus` value.
    package let rawValue: Int32

    /// The status with value `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `errSecSuccess`.
    package static let success = KeychainStatus(rawValue: 0)
    /// `errSecUnimplemented`.
    package static let unimplemented = KeychainStatus(rawValue: -4)
    /// `errSecDiskFull`.
    package static let diskFull = KeychainStatus(rawValue: -34)
    /// `errSecIO`.
    package static let io = KeychainStatus(rawValue: -36)
    /// `errSecParam`.
    package static let param = KeychainStatus(rawValue: -50)
    /// `errSecAllocate`.
    package static let allocate = KeychainStatus(rawValue: -108)
    /// `errSecUserCanceled`.
    package static let userCanceled = KeychainStatus(rawValue: -128)
    /// `errSecInternalComponent`.
    package static let internalComponent = KeychainStatus(rawValue: -2070)
    /// `errSecNotAvailable`.
    package static let notAvailable = KeychainStatus(rawValue: -25291)
    /// `errSecReadOnly`.
    package static let readOnly = KeychainStatus(rawValue: -25292)
    /// `errSecAuthFailed`.
    package static let authFailed = KeychainStatus(rawValue: -25293)
    /// `errSecNoSuchKeychain`.
    package static let noSuchKeychain = KeychainStatus(rawValue: -25294)
    /// `errSecInvalidKeychain`.
    package static let invalidKeychain = KeychainStatus(rawValue: -25295)
    /// `errSecDuplicateKeychain`.
    package static let duplicateKeychain = KeychainStatus(rawValue: -25296)
    /// `errSecDuplicateItem`.
    package static let duplicateItem = KeychainStatus(rawValue: -25299)
    /// `errSecItemNotFound`.
    package static let itemNotFound = KeychainStatus(rawValue: -25300)
    /// `errSecNoSuchAttr`.
    package static let noSuchAttribute = KeychainStatus(rawValue: -25303)
    /// `errSecNoSuchClass`.
    package static let noSuchClass = KeychainStatus(rawValue: -25306)
    /// `errSecInteractionNotAllowed`.
    package static let interactionNotAllowed = KeychainStatus(rawValue: -25308)
    /// `errSecDecode`.
    package static let decode = KeychainStatus(rawValue: -26275)
    /// Apple's private `errSecInternal` (SecBasePriv.h): an internal error.
    package static let `internal` = KeychainStatus(rawValue: -26276)
    /// `errSecMissingEntitlement`.
    package static let missingEntitlement = KeychainStatus(rawValue: -34018)

    /// The number, as Apple's tools print it.
    package var description: String { String(rawValue) }
}
