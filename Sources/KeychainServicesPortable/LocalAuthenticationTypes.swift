// The LocalAuthentication vocabulary that keychain code uses (policies, credential and
// biometry kinds, errors), with Apple's Swift names and raw values. LAContext itself is in
// LAContext.swift.

import Foundation

// MARK: - Policies and kinds

/// Apple: `LAPolicy`, what an authentication evaluation requires of the user.
public enum LAPolicy: Int, Sendable {
    /// Apple: biometry only (Touch ID, Face ID, Optic ID).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Apple: biometry, a companion device or the device passcode (keychain password).
    case deviceOwnerAuthentication = 2
    /// Apple: a paired companion device (Watch, Mac…).
    case deviceOwnerAuthenticationWithCompanion = 3
    /// Apple: biometry or a paired companion device.
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    /// Apple (watchOS): wrist detection on a paired Apple Watch.
    case deviceOwnerAuthenticationWithWristDetection = 5

    /// Apple: former name of `deviceOwnerAuthenticationWithCompanion`.
    @available(*, deprecated, renamed: "deviceOwnerAuthenticationWithCompanion")
    public static var deviceOwnerAuthenticationWithWatch: LAPolicy { .deviceOwnerAuthenticationWithCompanion }

    /// Apple: former name of `deviceOwnerAuthenticationWithBiometricsOrCompanion`.
    @available(*, deprecated, renamed: "deviceOwnerAuthenticationWithBiometricsOrCompanion")
    public static var deviceOwnerAuthenticationWithBiometricsOrWatch: LAPolicy {
        .deviceOwnerAuthenticationWithBiometricsOrCompanion
    }
}

/// Apple: `LACredentialType`, the kind of credential given to `LAContext.setCredential(_:type:)`.
public enum LACredentialType: Int, Sendable {
    /// Apple: the application-supplied password of items protected with
    /// `kSecAccessControlApplicationPassword`.
    case applicationPassword = 0
    /// Apple (macOS): a smart card PIN.
    case smartCardPIN = -3
}

/// Apple: `LABiometryType`, the biometric sensor a device offers.
public enum LABiometryType: Int, Sendable {
    /// Apple: no biometry available.
    case none = 0
    /// Apple: Touch ID.
    case touchID = 1
    /// Apple: Face ID.
    case faceID = 2
    /// Apple: Optic ID.
    case opticID = 4

    /// Apple: former name of `none`.
    @available(*, deprecated, renamed: "none")
    public static var LABiometryNone: LABiometryType { .none }
}

/// Apple: `LATouchIDAuthenticationMaximumAllowableReuseDuration`, the largest value (in
/// seconds) `LAContext.touchIDAuthenticationAllowableReuseDuration` accepts.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

// MARK: - Errors

/// Apple: `LAErrorDomain`, the domain of LocalAuthentication errors.
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

/// Apple: `LAError`, an error of the LocalAuthentication framework.
///
/// As on Apple platforms it wraps an `NSError` of domain `LAErrorDomain`, and `catch
/// LAError.userCancel` style patterns match it (also when it arrives as an `NSError`).
public struct LAError: CustomNSError, Hashable, Error {
    /// Apple: `LAError.Code`, the LocalAuthentication error codes.
    public enum Code: Int, Sendable, Equatable {
        /// Apple: the user did not provide valid credentials.
        case authenticationFailed = -1
        /// Apple: the user cancelled.
        case userCancel = -2
        /// Apple: the user chose the fallback (e.g. enter password) button.
        case userFallback = -3
        /// Apple: the system cancelled (e.g. another application came to the foreground).
        case systemCancel = -4
        /// Apple: no passcode is set on the device.
        case passcodeNotSet = -5
        /// Apple: biometry is not available.
        case biometryNotAvailable = -6
        /// Apple: no biometric identity is enrolled.
        case biometryNotEnrolled = -7
        /// Apple: biometry is locked after too many failed attempts.
        case biometryLockout = -8
        /// Apple: the application cancelled (e.g. called `invalidate()`).
        case appCancel = -9
        /// Apple: the context was invalidated before use.
        case invalidContext = -10
        /// Apple: no paired companion device is nearby.
        case companionNotAvailable = -11
        /// Apple (macOS): the biometric accessory is not paired.
        case biometryNotPaired = -12
        /// Apple (macOS): the biometric accessory is not connected.
        case biometryDisconnected = -13
        /// Apple (macOS): invalid dimensions were given.
        case invalidDimensions = -14
        /// Apple: showing the authentication UI was needed but forbidden
        /// (`interactionNotAllowed`).
        case notInteractive = -1004

        /// Apple: former name of `biometryNotAvailable`.
        @available(*, deprecated, renamed: "biometryNotAvailable")
        public static var touchIDNotAvailable: LAError.Code { .biometryNotAvailable }
        /// Apple: former name of `biometryNotEnrolled`.
        @available(*, deprecated, renamed: "biometryNotEnrolled")
        public static var touchIDNotEnrolled: LAError.Code { .biometryNotEnrolled }
        /// Apple: former name of `biometryLockout`.
        @available(*, deprecated, renamed: "biometryLockout")
        public static var touchIDLockout: LAError.Code { .biometryLockout }
        /// Apple: former name of `companionNotAvailable`.
        @available(*, deprecated, renamed: "companionNotAvailable")
        public static var watchNotAvailable: LAError.Code { .companionNotAvailable }

        /// Apple: lets `catch LAError.userCancel` (and `case LAError.userCancel`) match a thrown
        /// error that is an `LAError`, or an `NSError` of domain `LAErrorDomain`, with this code.
        public static func ~= (match: LAError.Code, error: any Error) -> Bool {
            if let laError = error as? LAError {
                return laError.errorCode == match.rawValue
            }
            let nsError = error as NSError
            return nsError.domain == LAErrorDomain && nsError.code == match.rawValue
        }
    }

    /// Apple: the wrapped `NSError`.
    public let _nsError: NSError

    /// Apple: wraps an `NSError` of domain `LAErrorDomain`.
    public init(_nsError: NSError) {
        self._nsError = _nsError
    }

    /// Apple: an error with `code` and optional `userInfo`.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self._nsError = NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    /// Apple: `LAErrorDomain`.
    public static var errorDomain: String { LAErrorDomain }

    /// Apple: the error code. A numeric code that no case names (possible only through
    /// `init(_nsError:)`) reads as `.authenticationFailed`; Apple traps there instead.
    public var code: Code { Code(rawValue: _nsError.code) ?? .authenticationFailed }

    /// Apple: the numeric error code.
    public var errorCode: Int { _nsError.code }

    /// Apple: the user-info dictionary.
    public var userInfo: [String: Any] { _nsError.userInfo }

    /// Apple: the user-info dictionary, for `NSError` bridging.
    public var errorUserInfo: [String: Any] { _nsError.userInfo }

    /// Apple: equal when domain, code and user info are equal.
    public static func == (lhs: LAError, rhs: LAError) -> Bool {
        lhs._nsError.domain == rhs._nsError.domain
            && lhs._nsError.code == rhs._nsError.code
            && NSDictionary(dictionary: lhs._nsError.userInfo).isEqual(to: rhs._nsError.userInfo)
    }

    /// Apple: hashes domain and code.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(_nsError.domain)
        hasher.combine(_nsError.code)
    }

    /// Apple: `LAError.Code.authenticationFailed`.
    public static var authenticationFailed: LAError.Code { .authenticationFailed }
    /// Apple: `LAError.Code.userCancel`.
    public static var userCancel: LAError.Code { .userCancel }
    /// Apple: `LAError.Code.userFallback`.
    public static var userFallback: LAError.Code { .userFallback }
    /// Apple: `LAError.Code.systemCancel`.
    public static var systemCancel: LAError.Code { .systemCancel }
    /// Apple: `LAError.Code.passcodeNotSet`.
    public static var passcodeNotSet: LAError.Code { .passcodeNotSet }
    /// Apple: `LAError.Code.biometryNotAvailable`.
    public static var biometryNotAvailable: LAError.Code { .biometryNotAvailable }
    /// Apple: `LAError.Code.biometryNotEnrolled`.
    public static var biometryNotEnrolled: LAError.Code { .biometryNotEnrolled }
    /// Apple: `LAError.Code.biometryLockout`.
    public static var biometryLockout: LAError.Code { .biometryLockout }
    /// Apple: `LAError.Code.appCancel`.
    public static var appCancel: LAError.Code { .appCancel }
    /// Apple: `LAError.Code.invalidContext`.
    public static var invalidContext: LAError.Code { .invalidContext }
    /// Apple: `LAError.Code.companionNotAvailable`.
    public static var companionNotAvailable: LAError.Code { .companionNotAvailable }
    /// Apple: `LAError.Code.biometryNotPaired`.
    public static var biometryNotPaired: LAError.Code { .biometryNotPaired }
    /// Apple: `LAError.Code.biometryDisconnected`.
    public static var biometryDisconnected: LAError.Code { .biometryDisconnected }
    /// Apple: `LAError.Code.invalidDimensions`.
    public static var invalidDimensions: LAError.Code { .invalidDimensions }
    /// Apple: `LAError.Code.notInteractive`.
    public static var notInteractive: LAError.Code { .notInteractive }
    /// Apple: former name of `biometryNotAvailable`.
    @available(*, deprecated, renamed: "biometryNotAvailable")
    public static var touchIDNotAvailable: LAError.Code { .biometryNotAvailable }
    /// Apple: former name of `biometryNotEnrolled`.
    @available(*, deprecated, renamed: "biometryNotEnrolled")
    public static var touchIDNotEnrolled: LAError.Code { .biometryNotEnrolled }
    /// Apple: former name of `biometryLockout`.
    @available(*, deprecated, renamed: "biometryLockout")
    public static var touchIDLockout: LAError.Code { .biometryLockout }
    /// Apple: former name of `companionNotAvailable`.
    @available(*, deprecated, renamed: "companionNotAvailable")
    public static var watchNotAvailable: LAError.Code { .companionNotAvailable }
}
