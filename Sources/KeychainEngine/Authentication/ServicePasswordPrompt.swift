#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OwnerAuthenticator {
    /// Asks for the keychain password once, in the embedded mode's pinentry prompt, for the
    /// keychain service to verify: a client of the service cannot read its keychain file, so the
    /// service (not this process) checks it and says whether to ask again (`retryMessage`).
    package func askKeychainPasswordForService(reason: String, retryMessage: String?) throws(OwnerAuthenticationFailure) -> Data {
        guard let pinentry else { throw .notInteractive }
        return try SystemFacilities.askPassword(
            pinentry, title: "Keychain", description: reason.isEmpty ? "Enter the keychain password." : reason,
            prompt: "Password:", error: retryMessage)
    }
}
