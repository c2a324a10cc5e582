import Foundation
import KeychainLinux
import KeychainServicesExtras

/// Unlock prompts answered through the pinentry program, as the keychain's own prompts are.
package enum PinentryPasswordAsker {
    /// An asker using the pinentry the process's configuration names (`KEYCHAINKIT_PINENTRY`, or
    /// `pinentry` on the `PATH` when there is a terminal or a display), or nil when no prompt can be shown — so a
    /// daemon without a terminal completes unlock prompts at once as dismissed instead of hanging.
    package static func configured() -> PasswordAsker? {
        guard let configuration = KeychainPromptProgram.configured() else { return nil }
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

    /// A confirmation asker on the same pinentry, or nil when no prompt can be shown: calls that
    /// need a confirmation are then refused, never left waiting.
    package static func configuredConfirmation() -> ConfirmationAsker? {
        guard let configuration = KeychainPromptProgram.configured() else { return nil }
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
