#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import KeychainServiceWire

/// How a client of the keychain service puts the service's consent prompt before its user. A
/// program that can ask (keychainctl on its controlling terminal) installs a ``prompter``; reads
/// then tell the service so, and a read that needs consent is answered through it on the same
/// connection. Without one — a library caller has no prompt of its own — the service answers such
/// a read `errSecInteractionNotAllowed`.
package enum ServiceConsent {
    /// What the user answered: the keychain password and whether to always allow.
    package struct Answer {
        /// The keychain password as typed (the caller wipes its copy).
        package var password: Data
        /// "Always allow": the service records a grant for the program.
        package var always: Bool

        /// An answer.
        package init(password: Data, always: Bool) {
            self.password = password
            self.always = always
        }
    }

    /// Shows a challenge's text and returns the user's answer, or nil when the user denied it.
    package typealias Prompter = @Sendable (ConsentChallenge) -> Answer?

    /// Returns the prompter when this process can ask its user at this moment, or nil. Asked
    /// only when a read goes to the service, so a process that never needs consent never probes
    /// for a terminal.
    package typealias PrompterSource = @Sendable () -> Prompter?

    private static let source = Mutex<PrompterSource?>(nil)

    /// Installs how this process finds its prompter (keychainctl: its controlling terminal).
    package static func install(_ source: @escaping PrompterSource) {
        self.source.withLock { $0 = source }
    }

    /// The prompter this process can use now, or nil (it cannot ask its user).
    package static var prompter: Prompter? {
        source.withLock { $0 }?()
    }
}
