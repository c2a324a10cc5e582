#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient

/// How the provider puts the keychain service's question before its user when the service cannot
/// decide a D-Bus client's access to an item without them: the service's text (the client as the
/// service identified it, its parents, the item) with allow once, always allow or deny; then, for
/// an allow, the keychain password, which goes to the service as the proof of the answer. The
/// provider decides nothing itself: a program of the user's cannot answer for the user, since the
/// service accepts no answer without the password.
package enum ForwardedConsentPrompter {
    /// The prompter on the provider's askers, or nil when either is missing (no prompt can be
    /// shown): the service then refuses what needs the user, at once.
    package static func prompter(askApplicationAccess: ApplicationAccessAsker?, askPassword: PasswordAsker?) -> ServiceConsent.Prompter? {
        guard let askApplicationAccess, let askPassword else { return nil }
        return { challenge in
            let note = challenge.canAlwaysAllow ? "" : "\n(The program cannot be verified, so it can be allowed once at a time only.)"
            let choice = askApplicationAccess(challenge.prompt + note)
            guard choice != .deny else { return nil }
            switch askPassword(challenge.prompt + "\n\nYour keychain password allows it" + (choice == .always ? " always." : " once."), nil) {
            case .password(let password):
                return ServiceConsent.Answer(password: password, always: choice == .always && challenge.canAlwaysAllow)
            case .cancelled:
                return nil
            }
        }
    }

    /// Installs the prompter for the calls this process forwards to the keychain service (nothing
    /// when no prompt can be shown).
    package static func install(askApplicationAccess: ApplicationAccessAsker?, askPassword: PasswordAsker?) {
        guard let prompter = prompter(askApplicationAccess: askApplicationAccess, askPassword: askPassword) else { return }
        ServiceForwarding.install(prompter: prompter)
    }
}
