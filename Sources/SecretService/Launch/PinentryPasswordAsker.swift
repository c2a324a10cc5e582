#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux
import KeychainToolSupport

/// Unlock prompts answered through the pinentry program, as the keychain's own prompts are.
package enum PinentryPasswordAsker {
    /// An asker using `program`, the pinentry the caller's configuration names
    /// (`ToolEnvironment.promptProgram`), or nil when no prompt can be shown (`program` is
    /// nil) — so a daemon without a terminal completes unlock prompts at once as dismissed
    /// instead of hanging.
    package static func asking(through program: KeychainPromptProgram?) -> PasswordAsker? {
        guard let configuration = program else { return nil }
        let pinentry = Pinentry(program: configuration.program, terminal: configuration.terminal,
                                responseTimeout: configuration.responseTimeout)
        return { description, retryMessage in
            do {
                return .password(try pinentry.password(title: "Keychain", description: description,
                                                       prompt: "Password:", error: retryMessage))
            } catch {
                return .cancelled
            }
        }
    }

    /// A confirmation asker on `program`, or nil when no prompt can be shown: calls that
    /// need a confirmation are then refused, never left waiting.
    package static func confirming(through program: KeychainPromptProgram?) -> ConfirmationAsker? {
        guard let configuration = program else { return nil }
        let pinentry = Pinentry(program: configuration.program, terminal: configuration.terminal,
                                responseTimeout: configuration.responseTimeout)
        return { description in
            do {
                return try pinentry.confirm(title: "Keychain", description: description, yes: "Allow", no: "Deny")
            } catch {
                return false  // A prompt that could not be shown is no confirmation.
            }
        }
    }
}
