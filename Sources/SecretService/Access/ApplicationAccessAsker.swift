#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux
import KeychainToolSupport

/// What a person answered when asked whether an application not on an item's list may use it.
package enum ApplicationAccessAnswer: Sendable, Equatable {
    /// Allow this access only.
    case once
    /// Allow it and put the application on the item's list.
    case always
    /// Refuse (also: cancelled, timed out, or the prompt could not be shown).
    case deny
}

/// Asks a person about an application's access; the text names the application, its parents and the item.
package typealias ApplicationAccessAsker = @Sendable (_ description: String) -> ApplicationAccessAnswer

/// Per-application access prompts through pinentry (three buttons: allow once, always allow, deny).
package enum PinentryApplicationAccessAsker {
    /// An asker on `program`, the pinentry the caller's configuration names, or nil when no prompt
    /// can be shown (no terminal, no display): the `confirm` policy then denies at once instead of
    /// waiting. The pinentry's response timeout bounds each prompt (an unanswered one is a deny).
    package static func asking(through program: KeychainPromptProgram?) -> ApplicationAccessAsker? {
        guard let configuration = program else { return nil }
        let pinentry = Pinentry(program: configuration.program, terminal: configuration.terminal,
                                responseTimeout: configuration.responseTimeout)
        return { description in
            do {
                switch try pinentry.choose(title: "Keychain", description: description,
                                           ok: "Allow _once", notOK: "_Always allow", cancel: "_Deny") {
                case .ok: return .once
                case .notOK: return .always
                case .cancel: return .deny
                }
            } catch {
                return .deny  // A prompt that could not be shown, or was not answered in time, is no permission.
            }
        }
    }
}
