import Foundation
import KeychainServices

/// A Keychain Services call that did not succeed: the function, its `OSStatus` and Apple's message.
public struct KeychainCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `OSStatus` the call returned.
    public let status: OSStatus
    /// The Keychain Services function that returned it (`SecItemAdd`, …).
    public let function: String

    /// An error for `status` returned by `function`.
    public init(_ status: OSStatus, in function: String) {
        self.status = status
        self.function = function
    }

    /// Apple's message for the status (`SecCopyErrorMessageString`).
    public var message: String {
        SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
    }

    /// The exit status `security(1)` uses: the low byte of the `OSStatus` (44 not found, …).
    public var exitCode: Int32 { Int32(UInt8(truncatingIfNeeded: status)) }

    /// The message; never contains a secret (statuses and function names only).
    public var description: String { "\(function): \(message)" }
}

/// Throws a `KeychainCallError` unless `status` is `errSecSuccess`.
func check(_ status: OSStatus, _ function: String) throws(KeychainCallError) {
    guard status == errSecSuccess else { throw KeychainCallError(status, in: function) }
}
