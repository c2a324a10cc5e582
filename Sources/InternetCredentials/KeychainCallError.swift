import KeychainPrimitives

/// A Keychain Services call that did not succeed: the function, its `OSStatus` and Apple's message.
package struct KeychainCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `OSStatus` the call returned.
    package let status: Int32
    /// The Keychain Services function that returned it (`SecItemAdd`, …).
    package let function: String
    /// The cause and the fix, when the keychain knew more than the status says (Linux:
    /// `KeychainFailureDetails`, read on the calling thread right after the call); never a secret.
    package let reason: String?

    /// An error for `status` returned by `function`, just now on this thread (its reason is read
    /// from the keychain's record of that call).
    package init(_ status: Int32, in function: String) {
        self.status = status
        self.function = function
        self.reason = KeychainItemCalls.failureReason(for: status)
    }

    /// Apple's message for the status (`SecCopyErrorMessageString`).
    package var appleMessage: String {
        KeychainItemCalls.message(for: status)
    }

    /// What the tools print: the cause and its fix first when the keychain knew them, then Apple's
    /// message in brackets (what the status is called, for searching); Apple's advice that
    /// cannot help here ("You may need to restart your computer.") is left out. Apple's full text
    /// stays in `SecCopyErrorMessageString` (``appleMessage``).
    package var message: String {
        let apple = Self.withoutInapplicableAdvice(appleMessage)
        guard let reason else { return apple }
        return reason + " [" + apple + "]"
    }

    /// Sentences of Apple's messages that advise what does not help off Apple platforms.
    private static let inapplicableAdvice = [" You may need to restart your computer."]

    /// `text` without ``inapplicableAdvice``.
    static func withoutInapplicableAdvice(_ text: String) -> String {
        inapplicableAdvice.reduce(text) { $0.removingText($1) }
    }

    /// The exit status `security(1)` uses: the low byte of the `OSStatus` (44 not found, …).
    package var exitCode: Int32 { Int32(UInt8(truncatingIfNeeded: status)) }

    /// The message; never contains a secret (statuses and function names only).
    package var description: String { "\(function): \(message)" }
}

/// Throws a `KeychainCallError` unless `status` is `errSecSuccess`.
func check(_ status: Int32, _ function: String) throws(KeychainCallError) {
    guard status == KeychainItemStatus.success else { throw KeychainCallError(status, in: function) }
}
